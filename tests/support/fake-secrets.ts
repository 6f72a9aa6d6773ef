/**
 * The one fixture of fake secrets the leak tests and the holdback bench configure: every kind the leak
 * policy reads from configuration (two API keys, the shared secret, a database URL with a password and
 * an internal host, a tool server URL with a token), random-looking like real ones. Never real values.
 */

/** The parts a leak could repeat on their own. */
export const FAKE_SECRET_PARTS = {
  sharedSecretHex: 'c9f1e27a4b6d08e3f5a1c7b92d4e6f80',
  databasePassword: 'Pa55w0rd-Zq8x7Lm',
  databaseHost: 'db-7f3k.internal.example.net',
  toolServerHost: 'tools-9x2.internal.example.org',
  toolServerToken: 'tok-8Hq2Lx9Vb4Nc7Zt1',
} as const;

/** The configuration that carries them, as environment variables. */
export const FAKE_SECRETS_ENV = {
  LLM_GATEWAY_API_KEY: 'sk-or-v1-5f0c9a7e3b1d4c2a8e6f0b9d7c5a3e1f2b4d6c8a0e9f7d5b',
  EMBEDDINGS_API_KEY: 'sk-proj-Q7w9E2r4T6y8U0i1O3p5A7s9D1f3G5h7',
  AGENT_SHARED_SECRET: `shared-${FAKE_SECRET_PARTS.sharedSecretHex}`,
  DATABASE_URL: `postgres://campus:${FAKE_SECRET_PARTS.databasePassword}@${FAKE_SECRET_PARTS.databaseHost}:5432/campus`,
  MCP_SERVER_URL: `https://${FAKE_SECRET_PARTS.toolServerHost}/mcp?token=${FAKE_SECRET_PARTS.toolServerToken}`,
} as const;
