/**
 * The `cmu_maps` object of CONTRACT.md (the front end's historical name for the campus map): every
 * field null when no map accompanies the answer.
 */
export interface CmuMaps {
  url: string | null;
  mode: 'location' | 'directions' | null;
  target: string | null;
  target_label: string | null;
  src: string | null;
  src_label: string | null;
  dest: string | null;
  dest_label: string | null;
}

export const NO_MAP: Readonly<CmuMaps> = Object.freeze({
  url: null,
  mode: null,
  target: null,
  target_label: null,
  src: null,
  src_label: null,
  dest: null,
  dest_label: null,
});

/** What `maps_show_map` asks for: the last valid request of a turn becomes its map. */
export interface MapRequestEvent {
  type: 'map_request';
  map: CmuMaps;
}
