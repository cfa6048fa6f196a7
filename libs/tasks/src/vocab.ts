/**
 * Every fixed word list the generator draws from. All text is written here or in frames/, none is loaded: the
 * generator uses no external data. Keys and answer values are built by `lexicon.ts` from these lists and from
 * generated pseudo-words; `vocab.spec.ts` checks that no word of these lists hides inside a filler word.
 */

const words = (text: string): readonly string[] => text.trim().split(/\s+/);

// ---- Parts of entity names (keys). A full key is partitioned between splits by its hash (lexicon.ts). ----

/** Objects: the head noun of every object key ("brass lantern", "ink-pot", "Dravel kettle"). */
export const NOUNS = words(`
  lamp lantern teapot vase kettle ladder mirror clock chest trunk satchel compass kite drum bell spade anvil basket
  bucket barrel saddle cradle sledge rowboat wagon easel loom quilt jug ladle skillet mallet chisel telescope thimble
  hourglass tankard candlestick birdcage kayak trowel whistle flute fiddle tureen casket
`);

/** Modifiers in front of a noun ("brass lantern"). */
export const MODIFIERS = words(`
  brass copper pewter enamel wicker velvet kitchen harbour cellar attic tower signal porch cabin parlour stable
  marble crystal bronze granite cedar
`);

/** First halves of hyphenated objects ("ink-pot" style: "coal-bucket", "map-chest"). */
export const HYPHEN_PREFIXES = words('ink map coal salt seed bread rope oil jam wine silk nail soap tool');

/** Parts that make near-duplicate objects ("the brass lantern stand"). Never keys themselves. */
export const DECOY_PARTS = words('stand cover case box shelf frame rack lid');

/** Kinds of agreement ("the Dravel Accord of 1887"). */
export const AGREEMENT_KINDS = words('Accord Treaty Compact Charter Covenant Convention Protocol Concord');

/** counting: prefixes and suffixes that build longer words around a counted word ("seavorlin", "vorlinwood"). */
export const COMPOUND_PREFIXES = words('pine crab wild star sand iron frost');
export const COMPOUND_SUFFIXES = words('wood land stone ling berry craft');

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
