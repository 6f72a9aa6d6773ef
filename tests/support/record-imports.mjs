/**
 * `node --import <this file>`: records the URL of every module the process loads, one per line, in the
 * file named by RECORD_IMPORTS_FILE. Used to prove what a start loads (the production entry loads no
 * sandbox module). A Node module-customisation hook: it observes resolution and changes nothing.
 */
import { register } from 'node:module';

register(new URL('./record-imports-hooks.mjs', import.meta.url), { data: { file: process.env.RECORD_IMPORTS_FILE } });
