/*
 * The list query of API.md §2 (rapiq syntax): filter[field], fields, sort, page[limit]/page[offset]
 * and include, typed per collection by the route table (filter keys from the route's declared
 * `filter[…]` parameters, field names from its record).
 */

/** A filter value: a string may carry the operators (`!` not, `~` like, `<`, `<=`, `>`, `>=`); a list means "in". */
export type FilterScalar = string | number | boolean | null;
export type FilterValue = FilterScalar | readonly FilterScalar[];

export interface ListQuery<Filter extends string = string, Field extends string = string> {
    /** `filter[field]=value`; `relation.field` filters through an allowed relation */
    filter?: { [K in Filter]?: FilterValue } & { [relation: `${string}.${string}`]: FilterValue | undefined };
    /** the projection: names replace it, `+name` adds an allowed withheld field */
    fields?: readonly (Field | `+${string}`)[];
    /** sort keys, `-name` descending */
    sort?: readonly (Field | `-${Field}`)[];
    page?: { limit?: number; offset?: number };
    /** relations to load */
    include?: readonly string[];
}

const scalar = (value: FilterScalar) => (value === null ? 'null' : String(value));

/**
 * The query string of a request: the list members in their API.md §2 form, every other member
 * as given (a string, number or boolean; undefined members are left out).
 */
export function buildQuery(query: object | undefined): URLSearchParams {
    const search = new URLSearchParams();
    if (!query) return search;
    for (const [name, value] of Object.entries(query)) {
        if (value === undefined) continue;
        switch (name) {
            case 'filter':
                for (const [field, filter] of Object.entries(value as Record<string, FilterValue | undefined>)) {
                    if (filter === undefined) continue;
                    search.append(`filter[${field}]`, Array.isArray(filter) ? filter.map(scalar).join(',') : scalar(filter as FilterScalar));
                }
                break;
            case 'fields':
            case 'sort':
            case 'include':
                search.append(name, Array.isArray(value) ? value.join(',') : String(value));
                break;
            case 'page': {
                const page = value as { limit?: number; offset?: number };
                if (page.limit !== undefined) search.append('page[limit]', String(page.limit));
                if (page.offset !== undefined) search.append('page[offset]', String(page.offset));
                break;
            }
            default:
                search.append(name, String(value));
        }
    }
    return search;
}
