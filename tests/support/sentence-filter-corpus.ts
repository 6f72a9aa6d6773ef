/**
 * Texts that exercise every rule of the sentence filter (src/guards/sentence-filter.ts): list markers,
 * quotes, headings, tables, fences, abbreviations, closing quotes and brackets after the end mark, runs
 * of spaces and tabs, "?!" and "…", blank lines, lines left empty by a drop, discourse openers, other
 * whitespace than space and tab, and text with no sentence end at all. `tests/fixtures/
 * sentence-filter-pins.json` holds what the filter produced for them, chunk by chunk, before its linear
 * rewrite (issue 12); tests/guards-sentence-pins.test.ts holds the filter to it.
 */
export const SENTENCE_CORPUS: readonly string[] = [
  "I couldn't retrieve the route. Walk north on Forbes.",
  "## Directions\n\n- I couldn't get the route.\n- Walk north on Forbes.\n",
  "1. First, I couldn't find the building. Go left.\n2. Go right.",
  "Intro.\n\nI couldn't load the map.\n\nWalk to 205 S. Craig St. and turn left.",
  "```\nI couldn't load the map.\n```\nDone.",
  "> I couldn't find the location.\n> Quote kept.",
  '| a | b |\n|---|---|\n| Use Google Maps | x |',
  'No claims here. Second sentence.\nNext line.\n',
  'Wean Hall is on the Cut. I couldn\'t load the map.  Bye!  "Quoted end." (Bracketed end.) Next one?! Yes… Sure.',
  'Dr. Smith teaches 15-122, e.g. on Tuesdays; i.e. twice a week vs. once. Meet at Rm. 5. Then go.',
  'Also, I was unable to get the directions for you.\tTry the campus shuttle.\t\tIt runs often.',
  "Unfortunately the routing tool isn't working right now. You can use Google Maps for turn-by-turn directions. Wean is north.",
  '   \n\n- \n-   I could not find the path.\n   \n\nEnd of list.   \n',
  '> > Nested quote. I cannot access the map.\n>\n> Kept.\n',
  '### Heading with a claim: I couldn\'t find the route.\n#### \n##### x',
  '~~~\ncode. More code.\n~~~\nAfter fence. I couldn\'t draw the map.',
  'A line with no sentence end at all and many words without any punctuation near the building and the lawn',
  "I think Wean Hall is on the north side of the Cut and I couldn't compute the walking path but it is close",
  'Spaces before a newline.   \nAnd after a drop. I couldn\'t get the map.   \nLast.',
  'Non-breaking\u00a0space. After it.\u00a0Odd.\rCarriage. Return.\vVertical. Tab.',
  '*I couldn\'t find that building.* **Bold end.** _Underscore end._ Plain.',
  '10. Numbered ten. 100) Paren numbered.\n+ Plus item. I can\'t find the location.\n* Star item.',
  'Sorry, the map service is down. Sorry, the dining hours are missing. Sorry about that.',
  'For detailed directions, try Citymapper. If you need help, ask. At the moment the map is fine. Right now it works.',
  "You'll want to use a navigation app. You can also check the campus map online. You should just walk.",
  '',
  '\n\n\n',
  'One.',
  'Trailing space after end. ',
  'x',
];
