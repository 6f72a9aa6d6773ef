/**
 * Sandbox sample data: a handful of student-guide pages in Markdown, the sandbox's stand-in for the
 * student guide the real tool server indexes. Sections are split on `##` headings into chunks.
 */

export interface GuidePage {
  path: string;
  title: string;
  description: string;
  content: string;
}

/** Base of the public guide links returned by `guide_get_section`. */
export const GUIDE_BASE_URL = 'https://guide.sandbox.example/';

export const SANDBOX_GUIDE: readonly GuidePage[] = [
  {
    path: 'src/pages/meal-plans.md',
    title: 'Meal Plans',
    description: 'How meal plans, blocks and DineXtra work.',
    content: `# Meal Plans

Every student living in university housing has a meal plan. Plans combine meal blocks and DineXtra dollars.

## Blocks

A block is one meal at a dining location, worth up to a set amount. Unused blocks expire at the end of the week.

## DineXtra

DineXtra is a declining balance in dollars, usable at every dining location and at Scotty's Market. It rolls over from fall to spring.

## Changing your plan

You can change your meal plan during the first two weeks of each semester through the housing portal.`,
  },
  {
    path: 'src/pages/wifi.md',
    title: 'Wi-Fi and Accounts',
    description: 'Connecting to campus Wi-Fi and setting up your Andrew account.',
    content: `# Wi-Fi and Accounts

## Campus networks

Use the CMU-SECURE network with your Andrew ID and password. Guests use CMU-GUEST.

## Eduroam

Eduroam works on campus and at other universities; sign in with your Andrew ID followed by @andrew.cmu.edu.

## Getting help

The Computing Services help center in the Cyert Hall lobby answers account and network questions.`,
  },
  {
    path: 'src/pages/libraries.md',
    title: 'Libraries and Study Spaces',
    description: 'Where to study, borrow books and print.',
    content: `# Libraries and Study Spaces

## Hunt Library

Hunt Library holds the main collection, the IDeATe studios and quiet study floors. It is open late during exams.

## Sorrells Library

Sorrells Library in Wean Hall serves engineering and computer science, with group study rooms you can book.

## Printing

Print from any cluster machine or your laptop; pages are charged to your print quota.`,
  },
  {
    path: 'src/pages/getting-around.md',
    title: 'Getting Around',
    description: 'Shuttles, escorts, buses and parking.',
    content: `# Getting Around

## Shuttles and escorts

Campus shuttles run evening routes around Oakland and Squirrel Hill; the escort service takes you home safely at night.

## Buses

Your student ID is a bus pass on Pittsburgh Regional Transit buses.

## Parking

Students who bring a car buy a parking permit from Parking and Transportation Services; evening and weekend parking is free in some lots.`,
  },
  {
    path: 'src/pages/housing.md',
    title: 'Housing',
    description: 'First-year housing, room selection, moving in and living on campus.',
    content: `# Housing

Housing and Residential Education runs the residence halls and apartments on campus.

## First-year housing

Every first-year student is guaranteed a room on campus and is expected to live there. First-years live together in first-year communities such as Morewood Gardens, Donner House, Mudge House and Resnik House. You submit a housing application with your preferences in the housing portal by June 1, and assignments, with your roommate, arrive in July.

## Room selection

Returning students choose rooms for the next year during room selection in the spring. Each student gets a time slot by lottery; you can pull in roommates and pick a room in the housing portal.

## Moving in and out

Move-in for first-years is the Saturday before orientation. Rooms must be empty by noon the day after your last exam in May.

## Laundry and packages

Every residence hall has free laundry machines. Packages go to the mailroom in the Cohon University Center; you get an email when one arrives.`,
  },
  {
    path: 'src/pages/health.md',
    title: 'Health and Wellness',
    description: 'Health services, counseling and urgent help.',
    content: `# Health and Wellness

## University Health Services

Health Services in Morewood Gardens offers appointments, vaccines and prescriptions.

## Counseling

Counseling and Psychological Services (CaPS) is where to talk to someone about stress, anxiety or feeling low: free, confidential, with same-day appointments and a 24/7 phone line: 412-268-2922.

## Emergencies

In an emergency call University Police at 412-268-2323 or 911.`,
  },
  {
    path: 'src/pages/id-card.md',
    title: 'ID Card',
    description: 'Your student ID card: getting one, replacing a lost card, what it opens.',
    content: `# ID Card

Your student ID card is your key, your meal card and your bus pass: keep it with you on campus.

## Getting your ID card

Your first ID card is free: upload a photo in the student portal before you arrive and pick the card up at The HUB in Warner Hall during orientation, with a government photo ID.

## Lost or damaged cards

Need a new card? Report a lost card in the student portal right away so nobody else can use it. A replacement card costs $25 at The HUB in Warner Hall (Monday to Friday, 9:00 AM to 5:00 PM); a damaged card is replaced free when you bring it in.

## What your card does

Your ID card opens residence halls and buildings after hours, pays with meal blocks and DineXtra, borrows library books and is your bus pass.`,
  },
  {
    path: 'src/pages/academic-calendar.md',
    title: 'Academic Calendar',
    description: 'Semester dates, add and drop deadlines, withdrawal and final exams.',
    content: `# Academic Calendar

The academic calendar sets the semester dates and the deadlines for adding, dropping and withdrawing from courses.

## Semester dates

The fall semester runs from late August to mid-December and the spring semester from mid-January to early May, with a week of spring break in March. The registrar publishes the exact dates each year.

## Adding and dropping courses

You can add a course until the end of the second week of the semester. The deadline to drop a course without a record is the end of the sixth week; after it, until the end of the tenth week, you can withdraw and a W appears on your transcript. Add, drop and withdraw in the student portal; your advisor must approve a drop that takes you below full time.

## Final exams

Final exams take place in the week after the last day of classes. The exam schedule is published mid-semester; a student with three exams in one day can ask to move one.`,
  },
];
