/**
 * The sandbox's sample bus service at the two Forbes Ave & Morewood Ave stops (CAMPUS_TOOLS.md, "bus"):
 * each route runs every `headway` minutes from `first` to `last` (minutes after midnight, campus time),
 * so predictions count down and roll over with the campus clock; nothing runs between 1:00 and 5:00 AM.
 * Sample data for local runs, not the real timetable.
 */

export interface BusStop {
  stop_id: string;
  name: string;
  direction: 'inbound' | 'outbound';
  landmarks: string[];
  typical_destinations: string[];
}

export interface BusRoute {
  route: string;
  destination: string;
  /** Minutes between buses. */
  headway: number;
  /** The first bus of the day, minutes after midnight; later ones every `headway` minutes. */
  first: number;
  /** No bus after this minute of the day (may pass midnight: 24 * 60 + n). */
  last: number;
  /** Places on the way riders ask for (lower case), beside its destination. */
  via: string[];
}

export const BUS_STOPS: readonly BusStop[] = [
  {
    stop_id: '4407',
    name: 'Forbes Ave & Morewood Ave (near Tepper Quad)',
    direction: 'inbound',
    landmarks: ['Tepper Quad', 'Morewood Gardens'],
    typical_destinations: ['Oakland', 'Downtown', 'Pittsburgh International Airport'],
  },
  {
    stop_id: '7117',
    name: 'Forbes Ave & Morewood Ave (near CUC)',
    direction: 'outbound',
    landmarks: ['Cohon University Center', 'Gesling Stadium'],
    typical_destinations: ['Squirrel Hill', 'McKeesport', 'Waterfront', 'Braddock Hills'],
  },
];

/** Routes by stop id (a Map: a rider's words are looked up in it, and `__proto__` is no stop). */
export const BUS_ROUTES: ReadonlyMap<string, readonly BusRoute[]> = new Map(Object.entries({
  '4407': [
    { route: '61A', destination: 'Downtown', headway: 20, first: 5 * 60 + 3, last: 24 * 60 + 43, via: ['oakland', 'downtown'] },
    { route: '61B', destination: 'Downtown', headway: 20, first: 5 * 60 + 13, last: 24 * 60 + 33, via: ['oakland', 'downtown'] },
    { route: '61C', destination: 'Downtown', headway: 15, first: 5 * 60 + 7, last: 24 * 60 + 52, via: ['oakland', 'downtown'] },
    { route: '61D', destination: 'Downtown', headway: 15, first: 5 * 60 + 11, last: 24 * 60 + 26, via: ['oakland', 'downtown'] },
    { route: '71B', destination: 'Downtown', headway: 30, first: 6 * 60 + 4, last: 23 * 60 + 34, via: ['oakland', 'downtown'] },
    { route: '28X', destination: 'Airport', headway: 30, first: 5 * 60 + 21, last: 23 * 60 + 51, via: ['oakland', 'downtown', 'airport'] },
  ],
  '7117': [
    { route: '61A', destination: 'Swissvale', headway: 20, first: 5 * 60 + 9, last: 24 * 60 + 49, via: ['squirrel hill', 'swissvale'] },
    { route: '61B', destination: 'Braddock Hills', headway: 20, first: 5 * 60 + 19, last: 24 * 60 + 39, via: ['squirrel hill', 'braddock hills'] },
    { route: '61C', destination: 'McKeesport', headway: 15, first: 5 * 60 + 2, last: 24 * 60 + 47, via: ['squirrel hill', 'mckeesport'] },
    { route: '61D', destination: 'Waterfront', headway: 15, first: 5 * 60 + 6, last: 24 * 60 + 21, via: ['squirrel hill', 'waterfront'] },
    { route: '67', destination: 'Monroeville', headway: 30, first: 5 * 60 + 27, last: 23 * 60 + 57, via: ['squirrel hill', 'monroeville'] },
    { route: '69', destination: 'Squirrel Hill', headway: 30, first: 5 * 60 + 16, last: 23 * 60 + 46, via: ['squirrel hill'] },
  ],
}));

/** Places riders ask for (lower case, without "the"), and the stop that serves them. */
export const BUS_PLACES: ReadonlyMap<string, string> = new Map(Object.entries({
  oakland: '4407',
  downtown: '4407',
  airport: '4407',
  'pittsburgh international airport': '4407',
  'squirrel hill': '7117',
  mckeesport: '7117',
  waterfront: '7117',
  'braddock hills': '7117',
  swissvale: '7117',
  monroeville: '7117',
}));

export const BUS_COVERAGE_NOTE =
  'Sandbox predictions for the two Forbes Ave & Morewood Ave stops only (4407 inbound, 7117 outbound), computed from the campus clock.';

export const PRT_RIDER_GUIDE = {
  status: 'ok',
  audience: 'Carnegie Mellon students, faculty and staff',
  benefit: 'Ride Pittsburgh Regional Transit (PRT) buses and the T light rail at no fare.',
  credential: 'Your CMU ID card (tap it on the fare reader when you board).',
  steps: [
    'Check the next bus at Forbes Ave & Morewood Ave: stop 4407 (near Tepper Quad) goes inbound, stop 7117 (near CUC) outbound.',
    'Wait at the stop for your direction and check the route sign on the front of the bus.',
    'Board at the front door.',
    'Tap your CMU ID card on the fare reader.',
    'Signal for your stop and leave by the rear door.',
  ],
  important_notes: [
    'A CMU ID that is not active (an expired or reported lost card) is refused by the reader.',
    'Lend your card to no one: it is for your own rides only.',
    'Lost your card? Report it to the campus card office, then get a replacement before riding.',
  ],
  source_url: 'https://www.cmu.edu/parking/transport/prt.html',
} as const;
