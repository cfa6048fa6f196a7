import type { Split } from '@fathom/contracts';
import { SPLITS } from '@fathom/contracts';

/**
 * Every word list the generator draws from. All text is written here, none is loaded: the generator uses no external
 * data. `vocab.spec.ts` checks the invariants the solvers rely on: entity lists are disjoint from each other and from
 * the filler, and no counted word hides inside any other word the generator can write.
 */

const words = (text: string): readonly string[] => text.trim().split(/\s+/);

// ---- Needle keys: partitioned by split (see `forSplit`). ----

/** niah: objects whose colour is asked ("What colour is the mirror?"). */
export const NIAH_OBJECTS = words(`
  mirror lantern teapot vase curtain sofa armchair carpet ladder bicycle umbrella suitcase wardrobe bookcase clock
  mailbox fence gate shutter blanket pillow quilt stool desk candle bucket wheelbarrow kite scarf sweater jacket bonnet
  helmet backpack sailboat tractor caravan scooter typewriter telephone piano guitar drum trumpet harp easel cushion
  doormat hammock birdcage jug bathtub cupboard dresser footstool sideboard teacup saucer platter
  chandelier wagon sledge rowboat trolley motorbike van lorry bus tram ferry kayak glider balloon parasol
  raincoat overcoat waistcoat mitten glove satchel briefcase trunk crate barrel cauldron skillet ladle colander
`);

/** multi_needle: items whose prices are summed. */
export const PRICED_ITEMS = words(`
  notebook wallet compass telescope microscope thermos toaster blender camera tripod saddle anvil stapler calculator
  projector printer scanner keyboard monitor speaker microphone headset charger tablet laptop router modem drill
  chisel wrench screwdriver handsaw sander grinder jigsaw level stethoscope barometer thermometer hourglass metronome
  sextant lens flashlight padlock toolbelt kiln loom spindle typeface globe atlas dictionary encyclopedia journal diary
  planner abacus protractor scale hygrometer compressor generator inverter battery lamp heater fan humidifier kettle
  mixer grill smoker juicer dehydrator
`);

/** extractive: the first word of an agreement's name ("the 1987 Harbour Accord"). */
export const AGREEMENT_STEMS = words(`
  Harbour Linden Marrow Ashford Bellmont Corran Dunmore Elmstead Fairholt Glenrock Holloway Ivybridge Kestrel
  Larkspur Merrow Northgate Oakhurst Penrose Quarrymoor Ravensworth Saltmarsh Thornbury Underhill Valemont Westerly
  Yarrow Zennor Alderney Brackwater Caldmere Druidstone Eastwick Foxhollow Greyfriars Hartwell Inchmore Kingsmere
  Lowther Millbrook Netherby Orwell Pendragon Redcliffe Silverdale Tamworth Upwood Vexley Whitby Ashgrove Briarwood
  Coldharbour Dunwich Everleigh Farrowdale Gildersleeve Highmoor Ironbridge Jessamine Kirkwall
`);

/** extractive: the kind of agreement; not partitioned (the stem carries the split). */
export const AGREEMENT_KINDS = words('Accord Treaty Compact Charter Pact Convention Protocol Concord');

/** extractive: cities where agreements were signed, drafted or ratified. */
export const CITIES = words(`
  Lisbon Oslo Geneva Vienna Prague Dublin Madrid Helsinki Warsaw Budapest Athens Bergen Lyon Porto Seville Turin
  Milan Naples Zurich Basel Bruges Ghent Antwerp Utrecht Leiden Hamburg Munich Dresden Krakow Riga Tallinn Vilnius
  Sofia Zagreb Belgrade Bucharest Ankara Cairo Tunis Nairobi Lagos Accra Dakar Lima Quito Bogota Santiago Montreal
  Toronto Boston Denver Seattle Austin Havana Manila Hanoi Seoul Osaka Kyoto Perth Hobart Auckland Wellington
`);

/** counting: words whose whole-word occurrences are counted. Each takes a regular plural in "s". */
export const COUNTED_WORDS = words(`
  apple lemon tiger falcon otter walnut pebble violin anchor badger beetle camel donkey eagle ferret hammer heron
  jackal koala llama magpie melon onion oyster panda parrot pigeon puffin rabbit raven squid turnip weasel zebra gecko
  lizard plum carrot pepper almond cashew peanut acorn thistle tulip orchid clover maple willow cedar spruce
  beaver lobster
`);

/** counting: prefixes and suffixes that build longer words around a counted word ("pineapple", "applewood"). */
export const COMPOUND_PREFIXES = words('pine crab sea wild star sand iron frost');
export const COMPOUND_SUFFIXES = words('wood land stone ling berry craft');

// ---- Shared answer vocabularies (not keys, so not partitioned). ----

/** niah answers. Grey also answers to "gray". */
export const COLOURS = words(`
  red blue green yellow orange purple pink brown black white grey silver gold teal violet crimson amber ivory indigo
  maroon turquoise beige lavender scarlet navy cream bronze copper emerald magenta
`);

/** Parts that make similar-named decoys ("the mirror stand", "the camera case"). Never keys themselves. */
export const DECOY_PARTS = words('box stand cover case shelf cabinet frame rack');

/** Rooms for plural decoys ("the mirrors in the hall"). */
export const ROOMS = words('hall attic cellar kitchen study nursery pantry workshop');

// ---- Filler prose: must never contain a key, an answer word, a digit, or a counted word as a substring. ----

export const FILLER = {
  names: words(`
    Agnes Bram Celia Dorian Edda Felix Greta Hugo Ines Jonas Kira Lorcan Mina Nils Odile Piet Quinn Rosa Soren Tilda
    Ulric Vera Wendel Xenia Yusuf Zora Ambrose Bettina Cyril Delphine Emeric Fenna Gideon Hester Isolde Jasper
    Katrin Leopold Marisol Nestor Ottilie Perpetua Rufus Sabine Thaddeus Ursula Viggo Winifred
  `),
  professions: words(`
    baker archivist ferryman clerk gardener surveyor miller teacher mayor stranger shepherd nurse engineer poet porter
    weaver courier magistrate innkeeper cartographer librarian blacksmith fisherman midwife harpist notary physician
    stonemason carpenter bookbinder
  `),
  adjectives: words(`
    quiet careful tired cheerful stubborn patient curious nervous elderly young famous modest restless thoughtful
    weary cautious generous solemn gentle proud anxious sleepy clever hurried
  `),
  verbs: words(`
    considered discussed revisited postponed questioned recorded misplaced described defended mentioned ignored
    reviewed copied explained doubted praised finished studied repeated rehearsed abandoned remembered sketched
    summarised delivered collected returned translated announced organised
  `),
  things: `plan|old argument|long letter|schedule|record of the meeting|story|rumour|proposal|route across the valley|
    unfinished song|recipe|weather report|inventory|forgotten promise|harvest tally|lecture|sermon|riddle|
    list of chores|survey of the coast|family history|travel account|lesson|dispute about the well|tide chart|
    census|petition|complaint|speech|poem`
    .split('|')
    .map((t) => t.trim().replace(/\s+/g, ' ')),
  places: words(`
    in_the_library near_the_river at_the_market by_the_old_well on_the_hill under_the_bridge in_the_courtyard
    at_the_station behind_the_mill in_the_archive beside_the_quay at_the_crossroads in_the_orchard
    along_the_towpath inside_the_chapel outside_the_school on_the_jetty in_the_reading_room near_the_lighthouse
    at_the_inn
  `).map((p) => p.replace(/_/g, ' ')),
  times: words(`
    that_morning after_supper late_in_the_evening before_dawn during_the_storm on_the_first_day_of_spring
    a_week_later at_noon the_following_winter years_afterwards on_a_damp_afternoon before_the_harvest
    after_the_funeral during_the_fair in_the_small_hours once_the_snow_melted at_the_end_of_the_season
  `).map((p) => p.replace(/_/g, ' ')),
  adverbs: words(`
    slowly quietly carefully eagerly reluctantly briefly patiently again thoroughly hastily gladly openly secretly
    calmly
  `),
  states: words(`
    hard_to_follow well_known long_overdue half_finished still_disputed surprisingly_short rather_confusing
    widely_admired badly_worded quite_ordinary
  `).map((p) => p.replace(/_/g, ' ')),
  connectors: words('because although while since whereas'),
  intransitive: words('walked waited lingered wandered rested paused slept worked'),
} as const;

/**
 * The third of a key vocabulary that belongs to `split`. The partition is by position in the list (round-robin), so
 * it is deterministic, balanced, and the same in every process; held-out keys never appear in train or eval tasks.
 */
export function forSplit<T>(items: readonly T[], split: Split): readonly T[] {
  const part = SPLITS.indexOf(split);
  return items.filter((_, i) => i % SPLITS.length === part);
}
