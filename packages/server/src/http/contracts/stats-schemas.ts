import { Type } from '@sinclair/typebox';

/** Parsed and checked by domains/event-log/stats.ts (a 400 with issues), documented here. */
const parsed = (description: string) => Type.Unknown({ description });

/** `GET /<collection>/@stats` (spec "Schema and statistics facets"). */
export const StatsQuery = Type.Object({
    group: parsed('`bucket(createdAt,hour|day|month)`, then optional dimensions (`realmId`; on /events also `scope`, `name`, `refType`), comma-separated.'),
    aggregate: Type.Optional(parsed('`count` (the only aggregate; the default).')),
    'filter[createdAt]': parsed('Required lower bound `>` or `>=` (an ISO 8601 instant); repeat the key for an upper bound `<` or `<=`.'),
}, { additionalProperties: true, description: '`filter[realmId]` and, on /events, `filter[scope]`, `filter[name]`, `filter[refType]` as in list reads.' });

/** One count per bucket and grouped dimension. */
export const statsEnvelope = Type.Object({
    data: Type.Array(Type.Object({
        bucket: Type.String({ description: 'An hour as its start instant (ISO 8601), a day `YYYY-MM-DD`, a month `YYYY-MM`.' }),
        count: Type.Integer({ minimum: 0 }),
    }, { additionalProperties: true, description: 'The grouped dimensions sit beside bucket and count.' })),
    meta: Type.Object({
        total: Type.Integer({ minimum: 0 }),
        group: Type.Array(Type.String()),
        aggregate: Type.Literal('count'),
    }),
}, { additionalProperties: false, description: 'Counts in bucket order; buckets without entries are left out.' });
