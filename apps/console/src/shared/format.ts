/**
 * Dates in the viewer's time zone, the UTC instant on hover: the text is local,
 * the `title` the ISO 8601 UTC form the API answered.
 */
const LOCAL = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

export function localDateTime(value: string | Date | null | undefined): string {
    if (value === null || value === undefined || value === '') return '—';
    const date = typeof value === 'string' ? new Date(value) : value;
    return Number.isNaN(date.getTime()) ? String(value) : LOCAL.format(date);
}

export function utcDateTime(value: string | Date | null | undefined): string {
    if (value === null || value === undefined || value === '') return '';
    const date = typeof value === 'string' ? new Date(value) : value;
    return Number.isNaN(date.getTime()) ? '' : `${date.toISOString().replace('T', ' ').replace(/\.\d{3}Z$/, '')} UTC`;
}
