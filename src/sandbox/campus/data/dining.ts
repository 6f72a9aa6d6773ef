/**
 * Sandbox sample data: a dozen dining locations with weekly hours. Hours are local times in the
 * campus time zone (America/New_York), one opening per day; a closing time past midnight is written
 * as minutes beyond 24:00 so late-night places stay open into the next calendar day.
 */

/** `[open, close]` in minutes after local midnight; close may exceed 1440 (past midnight). */
export type Opening = readonly [number, number];

export interface DiningLocation {
  name: string;
  cuisine: string;
  location: string;
  description: string;
  /** Index 0 = Sunday ... 6 = Saturday (the tool server's day numbering); null = closed that day. */
  hours: ReadonlyArray<Opening | null>;
}

const t = (hhmm: string): number => {
  const [h, m] = hhmm.split(':').map(Number) as [number, number];
  return h * 60 + m;
};
const open = (from: string, to: string): Opening => [t(from), t(to)];

/** Monday-Friday one opening, weekend another (null = closed). */
function week(weekday: Opening | null, saturday: Opening | null, sunday: Opening | null = saturday) {
  return [sunday, weekday, weekday, weekday, weekday, weekday, saturday] as const;
}

export const SANDBOX_DINING: readonly DiningLocation[] = [
  {
    name: 'Schatz Dining Room',
    cuisine: 'American',
    location: 'Cohon University Center, 2nd floor',
    description: 'All-you-care-to-eat dining hall with a salad bar, grill and rotating entrées.',
    hours: week(open('07:30', '20:00'), open('10:30', '19:00')),
  },
  {
    name: 'The Exchange',
    cuisine: 'American',
    location: 'Posner Hall, ground floor',
    description: 'Grab-and-go sandwiches, soups and coffee between Tepper classes.',
    hours: week(open('07:30', '15:00'), null),
  },
  {
    name: 'Tartan Pizza Co.',
    cuisine: 'Pizza',
    location: 'Cohon University Center, lower level',
    description: 'Hand-tossed pizza by the slice or pie, with a vegan cheese option.',
    hours: week(open('11:00', '23:00'), open('12:00', '24:00')),
  },
  {
    name: 'Gates Café',
    cuisine: 'Coffee',
    location: 'Gates & Hillman Centers, 3rd floor',
    description: 'Espresso drinks, pastries and light lunches next to the Randy Pausch bridge.',
    hours: week(open('08:00', '17:00'), null),
  },
  {
    name: 'Wean Coffee Bar',
    cuisine: 'Coffee',
    location: 'Wean Hall, 4th floor',
    description: 'Drip coffee, tea and bagels for early lectures.',
    hours: week(open('07:00', '14:00'), null),
  },
  {
    name: 'Nourish',
    cuisine: 'Vegetarian',
    location: 'Cohon University Center, 1st floor',
    description: 'Allergen-friendly kitchen: every dish free of the top nine allergens, many vegan.',
    hours: week(open('10:30', '19:00'), open('11:00', '15:00'), null),
  },
  {
    name: 'Taste of India',
    cuisine: 'Indian',
    location: 'Resnik House, food hall',
    description: 'Curries, dal and naan with vegetarian and vegan choices every day.',
    hours: week(open('11:00', '20:30'), open('12:00', '20:00')),
  },
  {
    name: 'Sushi Sama',
    cuisine: 'Asian',
    location: 'Resnik House, food hall',
    description: 'Made-to-order sushi rolls, poke bowls and miso soup.',
    hours: week(open('11:00', '19:00'), null),
  },
  {
    name: 'El Gallo de Oro',
    cuisine: 'Mexican',
    location: 'Cohon University Center, 1st floor',
    description: 'Burritos, tacos and bowls built to order.',
    hours: week(open('10:30', '21:00'), open('12:00', '20:00')),
  },
  {
    name: 'Scotty’s Market',
    cuisine: 'Convenience',
    location: 'Cohon University Center, lower level',
    description: 'Groceries, snacks and ready-made meals late into the night.',
    hours: [open('09:00', '26:00'), open('07:00', '26:00'), open('07:00', '26:00'), open('07:00', '26:00'),
      open('07:00', '26:00'), open('07:00', '26:00'), open('09:00', '26:00')],
  },
  {
    name: 'Stephanie’s Bakery',
    cuisine: 'Bakery',
    location: 'Tepper Building, 1st floor',
    description: 'Croissants, cookies and cakes baked every morning.',
    hours: week(open('07:30', '16:00'), open('09:00', '13:00'), null),
  },
  {
    name: 'Rohr Café',
    cuisine: 'Coffee',
    location: 'Tepper Building, Rohr Commons',
    description: 'Coffee and smoothies with seating over the quad.',
    hours: week(open('08:00', '19:00'), open('10:00', '16:00')),
  },
];
