/**
 * The built-in building catalog for the default campus, Carnegie Mellon University (Pittsburgh
 * campus), written by this project: building codes and names are public facts (the codes are the ones
 * the university's room listings and the ScottyLabs campus map use), the nicknames are what students
 * actually say. A TS module rather than JSON so it compiles into dist with the rest of the service.
 * `CAMPUS_BUILDINGS_FILE` replaces it; the nicknames also apply to a loaded catalog whose entry has
 * the same code and name (see catalog.ts), so the university's own file gets them too.
 */

/** One building: its code, its official name, and curated nicknames (phrases, never bare 2-letter words). */
export interface CatalogEntry {
  code: string;
  name: string;
  aliases: readonly string[];
}

// [code, name, nicknames]. Kept alphabetical by code so a missing building is easy to spot.
const ROWS: ReadonlyArray<readonly [string, string, readonly string[]]> = [
  ['2SC', '205 S. Craig', ['205 south craig']],
  ['3SC', '300 S. Craig (Police)', ['300 south craig', 'campus police station']],
  ['4SC', '407 S. Craig', ['407 south craig']],
  ['AH', 'Alumni House', []],
  ['AN', 'Ansys Hall', []],
  ['BH', 'Baker Hall', ['baker']],
  ['BOS', 'Boss House', []],
  ['BR', 'Bramer House', []],
  ['CC', '417 S. Craig', ['417 south craig']],
  ['CFA', 'College of Fine Arts', ['cfa building', 'fine arts building']],
  ['CIC', 'Collaborative Innovation Center', []],
  ['CLY', 'Clyde House', []],
  ['CUC', 'Cohon University Center', ['the uc', 'university center', 'cohon center', 'cohon']],
  ['CYH', 'Cyert Hall', []],
  ['DH', 'Doherty Hall', []],
  ['DON', 'Donner House', ['donner hall']],
  ['EDS', 'Smith Hall', ['scott smith hall']],
  ['FAF', 'Fairfax Apartments', []],
  ['FBA', 'Forbes Beeler Apartments', []],
  ['FCL', 'Fifth and Clyde House', []],
  ['FIF', 'Fifth Neville Apartments', []],
  ['FM', 'Facilities Management Services Building', ['fms building']],
  ['FRB', '4615 Forbes (CTTEC)', ['4615 forbes avenue']],
  ['GHC', 'Gates & Hillman Centers', ['gates', 'gates hillman', 'gates center', 'gates building', 'hillman center']],
  ['GQ1', 'Greek Quad', []],
  ['GQ2', 'Greek Quad', []],
  ['GQ3', 'Greek Quad', []],
  ['GQ4', 'Greek Quad', []],
  ['GQ5', 'Greek Quad', []],
  ['GQ6', 'Greek Quad', []],
  ['HAM', 'Hamerschlag House', []],
  ['HBH', 'Hamburg Hall', ['heinz college']],
  ['HEN', 'Henderson House', []],
  ['HH', 'Hamerschlag Hall', []],
  ['HIL', 'Highlands Apartments', []],
  ['HL', 'Hunt Library', ['the hunt library', 'hunt lib']],
  ['HOA', 'Hall of the Arts', []],
  ['INI', '4616 Henry', ['information networking institute']],
  ['MC', '4721 Fifth Ave (CDFD)', []],
  ['MCG', 'McGill House', []],
  ['MI', 'Mellon Institute', []],
  ['MM', 'Margaret Morrison Carnegie Hall', ['maggie mo', 'maggie moe', 'margaret morrison', 'maggie morrison']],
  ['MMA', 'Margaret Morrison Apartments Greek Housing', ['margaret morrison apartments']],
  ['MOE', 'Morewood E-Tower', ['e tower', 'morewood e tower']],
  ['MOR', 'Morewood Gardens', []],
  ['MUD', 'Mudge House', []],
  ['NSH', 'Newell-Simon Hall', ['newell simon']],
  ['NVL', 'Neville Apartments', []],
  ['PC', 'Posner Center', []],
  ['PCA', 'Purnell Center for the Arts', ['purnell center', 'purnell']],
  ['PH', 'Porter Hall', []],
  ['PO', '620 Henry', []],
  ['POS', 'Posner Hall', []],
  ['REH', 'Roberts Engineering Hall', ['roberts hall']],
  ['RES', 'Resnik House', []],
  ['ROF', 'Residence on Fifth', []],
  ['ROS1', 'Roselawn Terrace', []],
  ['ROS2', 'Roselawn Terrace', []],
  ['ROS3', 'Roselawn Terrace', []],
  ['SC', 'Scott Hall', []],
  ['SCO', 'Scobell House', []],
  ['SH', 'Scaife Hall', []],
  ['SPT', 'Spirit House', []],
  ['STE', 'Stever House', []],
  ['TCS', 'TCS Hall', ['tata consultancy services hall']],
  ['TEP', 'Tepper Building', ['tsb', 'tepper', 'tepper school', 'tepper school building', 'tepper quad']],
  ['UT', '4516 Henry (UTDC)', []],
  ['WEH', 'Wean Hall', ['wean', 'sorrells', 'sorrells library', 'sorrells engineering and science library']],
  ['WEL', 'Welch House', []],
  ['WF', 'Whitfield Hall', []],
  ['WH', 'Warner Hall', []],
  ['WOO', 'Woodlawn Apartments', []],
  ['WQ', 'WQED Building', ['wqed']],
  ['WWG', 'West Wing', []],
];

/** The built-in catalog entries (a fresh array each call: callers may not share mutable state). */
export function builtinCatalogEntries(): CatalogEntry[] {
  return ROWS.map(([code, name, aliases]) => ({ code, name, aliases }));
}
