/*
 * A strict reader of the Prometheus text exposition format 0.0.4
 * (https://prometheus.io/docs/instrumenting/exposition_formats/): tests hold GET /metrics to it
 * instead of searching the text. It throws on anything the format does not allow: a sample before
 * its TYPE, a family declared twice, a malformed name, label or value, a duplicate series, a
 * histogram whose buckets are not cumulative or whose _count is not its +Inf bucket.
 */

export interface Sample {
    name: string;
    labels: Record<string, string>;
    value: number;
}

export interface Family {
    name: string;
    type: 'counter' | 'gauge' | 'histogram' | 'summary' | 'untyped';
    help: string;
    samples: Sample[];
}

const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
const TYPES = new Set(['counter', 'gauge', 'histogram', 'summary', 'untyped']);
const SUFFIXES: Record<Family['type'], string[]> = {
    counter: ['', '_total'], gauge: [''], untyped: [''], histogram: ['_bucket', '_sum', '_count'], summary: ['', '_sum', '_count'],
};

/** Prometheus reads values with Go's strconv.ParseFloat: Inf and NaN in any letter case (prom-client writes "Nan"). */
function parseValue(text: string, line: number): number {
    if (/^\+?inf$/i.test(text)) return Infinity;
    if (/^-inf$/i.test(text)) return -Infinity;
    if (/^nan$/i.test(text)) return NaN;
    if (!/^[-+]?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?$/.test(text)) throw new Error(`line ${line}: bad value "${text}"`);
    return Number(text);
}

/** `{a="x",b="y\"z"}` from position 0 of `text`; returns the labels and the length read. */
function parseLabels(text: string, line: number): [Record<string, string>, number] {
    const labels: Record<string, string> = {};
    let at = 1;
    while (text[at] !== '}') {
        const name = /^[^=]*/.exec(text.slice(at))![0];
        if (!LABEL_NAME.test(name)) throw new Error(`line ${line}: bad label name "${name}"`);
        if (name in labels) throw new Error(`line ${line}: label "${name}" twice`);
        at += name.length;
        if (text.slice(at, at + 2) !== '="') throw new Error(`line ${line}: label "${name}" without a quoted value`);
        at += 2;
        let value = '';
        for (;;) {
            const char = text[at];
            if (char === undefined) throw new Error(`line ${line}: unterminated label value`);
            if (char === '"') break;
            if (char === '\\') {
                const next = text[at + 1];
                if (next === 'n') value += '\n';
                else if (next === '\\' || next === '"') value += next;
                else throw new Error(`line ${line}: bad escape "\\${String(next)}"`);
                at += 2;
                continue;
            }
            value += char;
            at += 1;
        }
        labels[name] = value;
        at += 1;
        if (text[at] === ',') at += 1;
        else if (text[at] !== '}') throw new Error(`line ${line}: expected , or } after label "${name}"`);
    }
    return [labels, at + 1];
}

export function parsePrometheusText(text: string): Map<string, Family> {
    const families = new Map<string, Family>();
    const helps = new Map<string, string>();
    const series = new Set<string>();
    if (!text.endsWith('\n')) throw new Error('the exposition must end with a line feed');
    text.slice(0, -1).split('\n').forEach((raw, index) => {
        const line = index + 1;
        if (raw === '') return;
        if (raw.startsWith('#')) {
            const meta = /^# (HELP|TYPE) (\S+) ?(.*)$/.exec(raw);
            if (!meta) return; // a plain comment
            const [, kind, name, rest] = meta as unknown as [string, string, string, string];
            if (!METRIC_NAME.test(name)) throw new Error(`line ${line}: bad metric name "${name}"`);
            if (kind === 'HELP') {
                if (helps.has(name)) throw new Error(`line ${line}: HELP of ${name} twice`);
                helps.set(name, rest);
                return;
            }
            if (!TYPES.has(rest)) throw new Error(`line ${line}: bad type "${rest}"`);
            if (families.has(name)) throw new Error(`line ${line}: TYPE of ${name} twice`);
            families.set(name, { name, type: rest as Family['type'], help: '', samples: [] });
            return;
        }
        const name = /^[^{\s]*/.exec(raw)![0];
        if (!METRIC_NAME.test(name)) throw new Error(`line ${line}: bad metric name "${name}"`);
        let rest = raw.slice(name.length);
        let labels: Record<string, string> = {};
        if (rest.startsWith('{')) {
            const [parsed, length] = parseLabels(rest, line);
            labels = parsed;
            rest = rest.slice(length);
        }
        const fields = rest.trim().split(/\s+/);
        if (!rest.startsWith(' ') || fields.length < 1 || fields.length > 2) throw new Error(`line ${line}: expected " value [timestamp]"`);
        if (fields[1] !== undefined && !/^-?\d+$/.test(fields[1])) throw new Error(`line ${line}: bad timestamp`);
        const family = [...families.values()].find((candidate) => SUFFIXES[candidate.type].some((suffix) => `${candidate.name}${suffix}` === name));
        if (!family) throw new Error(`line ${line}: sample ${name} before a TYPE line of its family`);
        const key = `${name}${JSON.stringify(Object.entries(labels).sort())}`;
        if (series.has(key)) throw new Error(`line ${line}: series ${key} twice`);
        series.add(key);
        family.samples.push({ name, labels, value: parseValue(fields[0]!, line) });
    });
    for (const family of families.values()) {
        family.help = helps.get(family.name) ?? '';
        if (family.type === 'histogram') checkHistogram(family);
    }
    return families;
}

/** Buckets cumulative with a +Inf bucket equal to _count, per label set. */
function checkHistogram(family: Family): void {
    const groups = new Map<string, Sample[]>();
    for (const sample of family.samples) {
        const { le: _le, ...rest } = sample.labels;
        const key = JSON.stringify(Object.entries(rest).sort());
        groups.set(key, [...(groups.get(key) ?? []), sample]);
    }
    for (const [key, samples] of groups) {
        const buckets = samples.filter((sample) => sample.name.endsWith('_bucket'));
        let previous = 0;
        for (const bucket of buckets) {
            if (bucket.labels.le === undefined) throw new Error(`${family.name}${key}: bucket without le`);
            if (bucket.value < previous) throw new Error(`${family.name}${key}: buckets not cumulative`);
            previous = bucket.value;
        }
        const infinite = buckets.find((bucket) => bucket.labels.le === '+Inf');
        const count = samples.find((sample) => sample.name.endsWith('_count'));
        if (!infinite || !count || infinite.value !== count.value) throw new Error(`${family.name}${key}: +Inf bucket and _count disagree`);
    }
}
