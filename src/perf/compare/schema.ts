/**
 * COMPARISON_SCHEMA: RunsComparison (types.ts) as `perf compare --json` prints it and `perf report`, `perf merge` and
 * `perf shard` read it back. Every field has a description; every list and text is bounded.
 */
import { finite, list, map, nullable, record, text, whole, type Schema } from '../../json-input.js';
import { MAX_METRICS, MAX_NAME_CHARS, MAX_REPEATS, MAX_TEXT_CHARS } from '../run-file.js';
import { PRIMARY_CHOICE_FIELDS, PRIMARY_CHOICE_REQUIRED, SEQUENTIAL_FIELDS, SEQUENTIAL_REQUIRED } from '../run-file.js';
import { ROW_VERDICTS, SEVERITIES } from '../compare.js';
import { MAX_ATTRIBUTION_LINES, MAX_STACK_DEPTH, MAX_STACKS } from '../attribution.js';
import { MAX_INSIGHT_CHANGES } from './insight-changes.js';

// 20,000 rows: one per metric of either run (MAX_METRICS each).
const MAX_ROWS = 2 * MAX_METRICS;
const nameText = (description: string): Schema => text(description, MAX_NAME_CHARS);
const proseText = (description: string): Schema => text(description, MAX_TEXT_CHARS);
const repeatCount = (description: string): Schema => whole(description, 0, MAX_REPEATS);

/** A number compare computed: JSON null where it came out NaN or infinite (values near the float limit). */
const computed = (description: string): Schema => nullable(finite(description), `${description} Null when not a finite number.`);

const ARM_SCHEMA = record(
  'One arm of a row.',
  { median: nullable(finite('Median.'), 'Median; null for an empty arm.'), n: repeatCount('Repeats counted.') },
  ['median', 'n'],
);

const SCALE_SCHEMA = record(
  'The scale.',
  { kind: { enum: ['baseline', 'floor'], description: 'What the scale is.' }, value: computed('Its value.') },
  ['kind', 'value'],
);

const CI_SCHEMA = record(
  'The interval.',
  {
    lowPct: computed('Low, %.'),
    highPct: computed('High, %.'),
    level: nullable(finite('Achieved confidence.', { minimum: 0, maximum: 1 }), 'Achieved confidence, or null.'),
  },
  ['lowPct', 'highPct', 'level'],
);

const msPerRepeat = (description: string): Schema => finite(`${description} ms per repeat.`);
const ATTRIBUTION_LINE_SCHEMA = record(
  'A place whose time per repeat changed.',
  {
    kind: { enum: ['function', 'forcedLayout', 'forcedStyle', 'longTask', 'step'], description: 'What kind of place.' },
    name: nameText("A function's name, or a step's label."),
    url: nullable(nameText('"path:line:col".'), 'Where the function is; null for a step.'),
    a: msPerRepeat('Median in the baseline,'),
    b: msPerRepeat('Median in the candidate,'),
    deltaMs: msPerRepeat('Hodges–Lehmann shift b − a,'),
    ci: nullable(
      record("Its interval, at the row's level.", { lowMs: finite('Low, ms.'), highMs: finite('High, ms.') }, ['lowMs', 'highMs']),
      "Null under 2 repeats a side, or when they cannot reach the row's level.",
    ),
    share: nullable(finite("Of the row's shift (0..1, may exceed 1)."), 'Null when the row is not in ms.'),
  },
  ['kind', 'name', 'url', 'a', 'b', 'deltaMs', 'ci', 'share'],
);
const ROW_ATTRIBUTION_SCHEMA = record(
  'Where the change is (regressed or inconclusive primary rows).',
  {
    lines: list('Ranked places and steps.', ATTRIBUTION_LINE_SCHEMA, MAX_ATTRIBUTION_LINES),
    repeats: record('Attribution repeats read.', { a: repeatCount('Baseline.'), b: repeatCount('Candidate.') }, ['a', 'b']),
    missing: proseText('Why nothing could be named, and how to get it.'),
  },
  ['lines', 'repeats'],
);

/** A row of compareMetrics (compare.ts CompareRow), as JSON. */
export const COMPARE_ROW_SCHEMA = record(
  'One metric compared.',
  {
    metric: nameText('Metric name.'),
    a: ARM_SCHEMA,
    b: ARM_SCHEMA,
    deltaPct: nullable(finite('%.'), 'Shift as % of the scale, or null.'),
    scale: nullable(SCALE_SCHEMA, 'What deltaPct is a percentage of.'),
    ci: nullable(CI_SCHEMA, "The shift's interval."),
    pValue: nullable(finite('p.'), 'One-sided p in the worse direction.'),
    pNeeded: nullable(finite('p.'), 'The level the p-value had to reach.'),
    verdict: { enum: [...ROW_VERDICTS], description: "The row's verdict." },
    severity: { enum: [...SEVERITIES], description: 'Its severity.' },
    gated: { type: 'boolean', description: 'A primary metric.' },
    setAside: proseText('Set aside by the noise rule: gated at a smaller share of α; why.'),
    role: { enum: ['primary', 'secondary', 'shown'], description: 'Its role.' },
    decided: { type: 'boolean', description: 'More repeats could not change it.' },
    needRepeats: nullable(repeatCount('Repeats.'), 'Repeats per arm that would decide it.'),
    reason: proseText('Why this verdict.'),
    shift: nullable(finite('Shift.'), "The shift in the metric's unit."),
    attribution: ROW_ATTRIBUTION_SCHEMA,
  },
  [
    'metric',
    'a',
    'b',
    'deltaPct',
    'scale',
    'ci',
    'pValue',
    'pNeeded',
    'verdict',
    'severity',
    'gated',
    'role',
    'decided',
    'reason',
    'shift',
  ],
);

const INSIGHT_ARM_SCHEMA = record(
  "One arm's record of an insight.",
  {
    fired: repeatCount('Counted repeats it fired in.'),
    of: repeatCount('Counted repeats that ran the insights.'),
    savingsMs: nullable(finite('Median estimated savings, ms.'), 'Median estimated savings, ms; null when it gives none.'),
  },
  ['fired', 'of', 'savingsMs'],
);

const INSIGHT_CHANGE_SCHEMA = record(
  'An insight that changed between the runs.',
  {
    id: nameText('The insight id perf_insight takes.'),
    title: proseText('Its title.'),
    change: { enum: ['new', 'gone', 'grew', 'shrank'], description: 'What changed, seen from the candidate.' },
    culprit: proseText("What it points at (a URL, a function), the candidate's when both name one."),
    a: INSIGHT_ARM_SCHEMA,
    b: INSIGHT_ARM_SCHEMA,
    line: proseText('One line for a reader.'),
  },
  ['id', 'title', 'change', 'a', 'b', 'line'],
);

const IDENTITY_SCHEMA = record(
  'A run compared.',
  {
    file: nullable(nameText('Path.'), 'Its run file, or null.'),
    scenario: nameText('Scenario.'),
    variant: nullable(nameText('Variant.'), 'Variant, or null.'),
    label: nameText('Label.'),
    startedAt: nameText('When it began.'),
    measured: repeatCount('Measured repeats.'),
    refused: repeatCount('Refused repeats.'),
    failed: repeatCount('Failed repeats.'),
    timingRepeats: repeatCount('Timing-mode repeats.'),
  },
  ['file', 'scenario', 'variant', 'label', 'startedAt', 'measured', 'refused', 'failed', 'timingRepeats'],
);

const flag = (description: string): Schema => ({ type: 'boolean', description });
const DIRECTION = { enum: ['worse', 'better'], description: 'The direction.' };
const orNull = (description: string): Schema => nullable(finite(description), `${description} Or null.`);

const THRESHOLDS_USED_SCHEMA = record(
  'Thresholds used.',
  {
    warnPct: finite('Warn, %.'),
    errorPct: finite('Error, %.'),
    metrics: map('Overrides.', { type: 'object', description: 'One.' }, MAX_METRICS, MAX_NAME_CHARS),
  },
  ['warnPct', 'errorPct', 'metrics'],
);

const NOT_JUDGED_SCHEMA = record('One.', { metric: nameText('Metric.'), why: proseText('Why.') }, ['metric', 'why']);
const SET_ASIDE_SCHEMA = record(
  'One.',
  { metric: nameText('Metric.'), why: proseText('Why.'), deltaPct: orNull('Its estimated change, % of the baseline.') },
  ['metric', 'why', 'deltaPct'],
);
const CHOSEN_SCHEMA = record('How the primary family was chosen.', { ...PRIMARY_CHOICE_FIELDS, note: proseText('In words.') }, [
  ...PRIMARY_CHOICE_REQUIRED,
  'note',
]);
const SEQUENTIAL_NOTED_SCHEMA = record('How it sampled.', { ...SEQUENTIAL_FIELDS, note: proseText('In words.') }, SEQUENTIAL_REQUIRED);

const GATE_SCHEMA = record(
  'What decided the verdict.',
  {
    primary: list('Primary metrics judged.', nameText('A metric.'), MAX_ROWS),
    setAside: list('Primary metrics set aside as noisy: gated at a smaller share of α.', SET_ASIDE_SCHEMA, MAX_ROWS),
    notJudged: list('Primary metrics not judged.', NOT_JUDGED_SCHEMA, MAX_ROWS),
    chosen: CHOSEN_SCHEMA,
    alpha: finite('False-alarm rate.', { minimum: 0, maximum: 1 }),
    look: whole('Which look.', 1, MAX_REPEATS),
    sequential: nullable(SEQUENTIAL_NOTED_SCHEMA, 'The design, or null.'),
    summary: proseText('One line.'),
  },
  ['primary', 'notJudged', 'alpha', 'look', 'sequential', 'summary'],
);

const PAINTED_SCHEMA = record('Median per run.', { a: orNull('A.'), b: orNull('B.') }, ['a', 'b']);

const FLAME_STACK_SCHEMA = record(
  'A stack.',
  { frames: list('Frames root → leaf, "name path:line:col".', nameText('A frame.'), MAX_STACK_DEPTH), selfMs: finite('Self ms.') },
  ['frames', 'selfMs'],
);
const FLAME_SIDE_SCHEMA = nullable(
  record(
    'The median attribution repeat of one run.',
    {
      repeat: whole('Its repeat index.', 0, MAX_REPEATS - 1),
      stacks: list('Folded stacks, heaviest first.', FLAME_STACK_SCHEMA, MAX_STACKS),
    },
    ['repeat', 'stacks'],
  ),
  'Null when the run has no attribution record.',
);

/** RunsComparison as `perf compare --json` prints it, and as `perf report` and `perf merge` read it back. */
export const COMPARISON_SCHEMA = record(
  'A compare result.',
  {
    verdict: { enum: ['pass', 'warn', 'fail', 'inconclusive'], description: 'The verdict.' },
    thresholds: THRESHOLDS_USED_SCHEMA,
    frames: record('Painted frames.', { painted: PAINTED_SCHEMA }, ['painted']),
    rows: list('One row per metric.', COMPARE_ROW_SCHEMA, MAX_ROWS),
    unchanged: list('Metrics unchanged.', nameText('A metric.'), MAX_ROWS),
    timing: record('How ms were judged.', { gated: flag('ms gated.'), note: proseText('Why.') }, ['gated', 'note']),
    warnings: list('Differences a reader must know about.', proseText('A warning.'), MAX_ROWS),
    decided: flag('More repeats cannot change the verdict.'),
    rejected: map('Rejections so far.', DIRECTION, MAX_ROWS, MAX_NAME_CHARS),
    blind: proseText('Why the compare cannot detect its thresholds.'),
    host: record(
      'Whether both runs come from one kind of machine, and whether it was busy.',
      {
        same: flag('Same.'),
        note: proseText('What it means.'),
        busy: record(
          "Set when a primary difference followed the host's speed, not the build: those rows are inconclusive.",
          {
            repeats: repeatCount(
              "Repeats whose calibration, or the CPU other processes left them, fell far below the pair's usual, both arms.",
            ),
            of: repeatCount('Counted measured repeats with a host record, both arms.'),
            note: proseText('One line: how busy, and which metrics followed the host.'),
          },
          ['repeats', 'of', 'note'],
        ),
      },
      ['same'],
    ),
    gate: GATE_SCHEMA,
    baseline: IDENTITY_SCHEMA,
    candidate: IDENTITY_SCHEMA,
    attribution: record(
      'For a differential flame graph.',
      { flame: record("Each run's median repeat.", { a: FLAME_SIDE_SCHEMA, b: FLAME_SIDE_SCHEMA }, ['a', 'b']) },
      ['flame'],
    ),
    insights: list('Insights that appear, disappear, grow or shrink between the runs.', INSIGHT_CHANGE_SCHEMA, MAX_INSIGHT_CHANGES),
  },
  [
    'verdict',
    'thresholds',
    'frames',
    'rows',
    'unchanged',
    'timing',
    'warnings',
    'decided',
    'rejected',
    'host',
    'gate',
    'baseline',
    'candidate',
  ],
);
