/**
 * Sandbox sample data: where the buildings of the default campus are. Keyed by the catalog's codes;
 * the names are the sandbox server's own (the real tool server has its own data too, so the service
 * must not assume the two agree). Coordinates are approximate label positions, good enough for maps
 * links and distances in development, not for navigation.
 */

export interface SandboxBuilding {
  code: string;
  name: string;
  latitude: number;
  longitude: number;
  /** Floors that have rooms in the sample data (the first is the entrance floor). */
  floors: string[];
  /** Sample rooms: `[room number, type]`, e.g. `['4401', 'lecture']`. */
  rooms?: Array<[string, string]>;
  /** What the building holds and the names students use for it, as a map's place description would say. */
  holds?: string;
}

/** `[code, name, latitude, longitude]` rows, kept compact so the table is easy to scan. */
const ROWS: Array<[string, string, number, number]> = [
  ['2SC', '205 S. Craig', 40.4462, -79.9491],
  ['3SC', '300 S. Craig (Police)', 40.4456, -79.9489],
  ['4SC', '407 S. Craig', 40.4449, -79.9484],
  ['AH', 'Alumni House', 40.4467, -79.9438],
  ['AN', 'Ansys Hall', 40.4440, -79.9457],
  ['BH', 'Baker Hall', 40.4412, -79.9444],
  ['BOS', 'Boss House', 40.4449, -79.9408],
  ['BR', 'Bramer House', 40.4451, -79.9392],
  ['CC', '417 S. Craig', 40.4447, -79.9483],
  ['CFA', 'College of Fine Arts', 40.4417, -79.9427],
  ['CIC', 'Collaborative Innovation Center', 40.4448, -79.9473],
  ['CLY', 'Clyde House', 40.4479, -79.9413],
  ['CUC', 'Cohon University Center', 40.4433, -79.9419],
  ['CYH', 'Cyert Hall', 40.4443, -79.9437],
  ['DH', 'Doherty Hall', 40.4423, -79.9443],
  ['DON', 'Donner House', 40.4446, -79.9406],
  ['EDS', 'Smith Hall', 40.4433, -79.9467],
  ['FAF', 'Fairfax Apartments', 40.4485, -79.9462],
  ['FBA', 'Forbes Beeler Apartments', 40.4447, -79.9385],
  ['FCL', 'Fifth and Clyde House', 40.4482, -79.9410],
  ['FIF', 'Fifth Neville Apartments', 40.4487, -79.9470],
  ['FM', 'Facilities Management Services Building', 40.4403, -79.9415],
  ['FRB', '4615 Forbes (CTTEC)', 40.4446, -79.9489],
  ['GHC', 'Gates & Hillman Centers', 40.4435, -79.9445],
  ['GQ1', 'Greek Quad', 40.4460, -79.9412],
  ['GQ2', 'Greek Quad', 40.4461, -79.9416],
  ['GQ3', 'Greek Quad', 40.4462, -79.9420],
  ['GQ4', 'Greek Quad', 40.4463, -79.9424],
  ['GQ5', 'Greek Quad', 40.4464, -79.9428],
  ['GQ6', 'Greek Quad', 40.4465, -79.9432],
  ['HAM', 'Hamerschlag House', 40.4442, -79.9403],
  ['HBH', 'Hamburg Hall', 40.4444, -79.9453],
  ['HEN', 'Henderson House', 40.4456, -79.9402],
  ['HH', 'Hamerschlag Hall', 40.4424, -79.9468],
  ['HIL', 'Highlands Apartments', 40.4494, -79.9423],
  ['HL', 'Hunt Library', 40.4411, -79.9437],
  ['HOA', 'Hall of the Arts', 40.4414, -79.9419],
  ['INI', '4616 Henry', 40.4452, -79.9496],
  ['MC', '4721 Fifth Ave (CDFD)', 40.4491, -79.9498],
  ['MCG', 'McGill House', 40.4453, -79.9404],
  ['MI', 'Mellon Institute', 40.4461, -79.9509],
  ['MM', 'Margaret Morrison Carnegie Hall', 40.4416, -79.9412],
  ['MMA', 'Margaret Morrison Apartments Greek Housing', 40.4422, -79.9402],
  ['MOE', 'Morewood E-Tower', 40.4446, -79.9424],
  ['MOR', 'Morewood Gardens', 40.4449, -79.9430],
  ['MUD', 'Mudge House', 40.4476, -79.9394],
  ['NSH', 'Newell-Simon Hall', 40.4437, -79.9455],
  ['NVL', 'Neville Apartments', 40.4490, -79.9478],
  ['PC', 'Posner Center', 40.4405, -79.9425],
  ['PCA', 'Purnell Center for the Arts', 40.4431, -79.9431],
  ['PH', 'Porter Hall', 40.4418, -79.9461],
  ['PO', '620 Henry', 40.4458, -79.9500],
  ['POS', 'Posner Hall', 40.4412, -79.9422],
  ['REH', 'Roberts Engineering Hall', 40.4428, -79.9464],
  ['RES', 'Resnik House', 40.4437, -79.9401],
  ['ROF', 'Residence on Fifth', 40.4488, -79.9448],
  ['ROS1', 'Roselawn Terrace', 40.4470, -79.9400],
  ['ROS2', 'Roselawn Terrace', 40.4471, -79.9403],
  ['ROS3', 'Roselawn Terrace', 40.4472, -79.9406],
  ['SC', 'Scott Hall', 40.4431, -79.9470],
  ['SCO', 'Scobell House', 40.4443, -79.9398],
  ['SH', 'Scaife Hall', 40.4419, -79.9472],
  ['SPT', 'Spirit House', 40.4466, -79.9398],
  ['STE', 'Stever House', 40.4439, -79.9393],
  ['TCS', 'TCS Hall', 40.4445, -79.9468],
  ['TEP', 'Tepper Building', 40.4451, -79.9449],
  ['UT', '4516 Henry (UTDC)', 40.4455, -79.9480],
  ['WEH', 'Wean Hall', 40.4427, -79.9456],
  ['WEL', 'Welch House', 40.4450, -79.9413],
  ['WF', 'Whitfield Hall', 40.4440, -79.9476],
  ['WH', 'Warner Hall', 40.4443, -79.9429],
  ['WOO', 'Woodlawn Apartments', 40.4478, -79.9402],
  ['WQ', 'WQED Building', 40.4474, -79.9491],
  ['WWG', 'West Wing', 40.4430, -79.9411],
];

/** Sample rooms for the buildings people most often ask about. */
const ROOMS: Record<string, Array<[string, string]>> = {
  GHC: [['4401', 'lecture'], ['4301', 'lecture'], ['5300', 'study'], ['6115', 'conference'], ['4215', 'lecture']],
  WEH: [['5310', 'lecture'], ['7500', 'lecture'], ['4623', 'study'], ['5421', 'lecture']],
  DH: [['2210', 'lecture'], ['A302', 'lecture'], ['1212', 'lecture']],
  CUC: [['Rangos Ballroom', 'event'], ['McConomy Auditorium', 'lecture'], ['Connan Room', 'study']],
  BH: [['A51', 'lecture'], ['136A', 'lecture']],
  TEP: [['1403', 'lecture'], ['Simmons Auditorium', 'lecture']],
  HL: [['Reading Room', 'study'], ['IDeATe Studio A', 'studio']],
  PH: [['100', 'lecture'], ['A18A', 'lecture']],
  POS: [['152', 'lecture']],
  NSH: [['3305', 'lecture']],
};

/** What the buildings people ask about hold, and what students call them. */
const HOLDS: Record<string, string> = {
  CUC: 'the UC, student center: dining, the gym (fitness center and pool), the mailroom, Rangos Ballroom',
  HL: 'the main library: quiet study floors, the IDeATe studios, printing',
  GHC: 'the School of Computer Science (the CS building), Gates Café',
  WEH: 'mathematics, Sorrells Library (engineering and computer science), lecture halls, Wean Coffee Bar',
  TEP: 'the Tepper School of Business (the business school), Rohr Café',
  '3SC': 'University Police (campus police)',
  MOR: 'first-year housing, University Health Services (the health center)',
  DON: 'first-year housing',
  MUD: 'first-year housing',
  RES: 'first-year housing',
  CFA: 'art, architecture and music studios',
  PCA: 'theater and drama',
  DH: 'chemistry labs and large lecture halls',
  BH: 'humanities and social sciences (Dietrich College)',
  POS: 'The Exchange dining',
};

/** Every sample building, in catalog code order. */
export const SANDBOX_BUILDINGS: readonly SandboxBuilding[] = ROWS.map(([code, name, latitude, longitude]) => {
  const rooms = ROOMS[code];
  const floors = rooms ? [...new Set(['1', ...rooms.map(([room]) => floorOf(room))])] : ['1'];
  return { code, name, latitude, longitude, floors, ...(rooms ? { rooms } : {}), ...(HOLDS[code] ? { holds: HOLDS[code] } : {}) };
});

/** The floor a room number sits on: its first digit, `A`/`B` prefixes meaning the lower levels. */
export function floorOf(room: string): string {
  if (/^[A-B]/.test(room)) return room[0]!;
  const digit = /^\d/.exec(room);
  return digit ? digit[0] : '1';
}
