/**
 * The one builder of campus map links and of the `cmu_maps` payload (CONTRACT.md "Complete response
 * object"): location `<MAP_BASE>/<CODE>?dst=<CODE>`, directions `<MAP_BASE>/<DST>?src=<SRC>&dst=<DST>`,
 * codes percent-encoded. The front end reads every field, so all eight are always set.
 */
import type { CmuMaps } from './cmu-maps.js';
import type { Building } from './catalog.js';

const enc = encodeURIComponent;

/**
 * The map for a destination, with directions from `origin` when it is given and a different building;
 * otherwise a location map of the destination. `mapBaseUrl` has no trailing slash (config strips it).
 */
export function buildCampusMap(mapBaseUrl: string, destination: Building, origin: Building | null = null): CmuMaps {
  const base = mapBaseUrl.replace(/\/+$/, '');
  const dst = destination.code;
  if (origin && origin.code !== dst) {
    return {
      url: `${base}/${enc(dst)}?src=${enc(origin.code)}&dst=${enc(dst)}`,
      mode: 'directions',
      target: dst,
      target_label: destination.name,
      src: origin.code,
      src_label: origin.name,
      dest: dst,
      dest_label: destination.name,
    };
  }
  return {
    url: `${base}/${enc(dst)}?dst=${enc(dst)}`,
    mode: 'location',
    target: dst,
    target_label: destination.name,
    src: null,
    src_label: null,
    dest: dst,
    dest_label: destination.name,
  };
}
