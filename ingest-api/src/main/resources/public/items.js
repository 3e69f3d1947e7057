// The demo's sample content. A real app has its own items; Tally only ever sees `type:id` keys.
export const ITEM_TYPE = 'post';

export const ITEMS = [
  { id: '1', title: 'A field guide to city pigeons', blurb: 'Twelve breeds you walk past every day, and how to tell them apart.' },
  { id: '2', title: 'Why sourdough needs patience', blurb: 'What the wild yeast is doing during those long, quiet hours.' },
  { id: '3', title: 'The night train to Lisbon', blurb: 'Notes from a sleeper carriage, from dusk at the border to breakfast by the sea.' },
  { id: '4', title: 'Fixing a bike chain without tools', blurb: 'A roadside repair with nothing but a stick, a stone and some nerve.' },
  { id: '5', title: 'Tiny houses, big winters', blurb: 'How people heat twenty square metres when it is minus twenty outside.' },
  { id: '6', title: 'The case for boring software', blurb: 'Well-worn tools, fewer surprises and the freedom to think about the problem.' },
  { id: '7', title: 'Learning the cello at forty', blurb: 'A year of scales, sore fingers and one slightly wobbly Bach prelude.' },
  { id: '8', title: 'Moss lawns: a quiet rebellion', blurb: 'No mowing, no fertiliser, and soft green underfoot all year round.' },
  { id: '9', title: 'Reading old maps', blurb: 'Sea monsters, missing continents and what cartographers guessed at.' },
  { id: '10', title: 'The perfect cup of tea', blurb: 'Water temperature, steeping time, and the milk-first debate settled (again).' },
  { id: '11', title: 'Stargazing from a balcony', blurb: 'What you can still see from the middle of a bright city.' },
  { id: '12', title: 'Repair cafés are back', blurb: 'Neighbours fixing toasters, jeans and radios together on a Saturday.' },
];
