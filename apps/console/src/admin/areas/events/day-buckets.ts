/**
 * The 30 days of the events chart (day buckets over 30 days), oldest first, each
 * with its count from GET /events/@stats?group=bucket(createdAt,day) — a day without events is
 * absent from the answer and counted 0 here. Days are UTC, as the server's buckets are.
 */
export interface DayCount { day: string; count: number }

const CHART_DAYS = 30;

const utcDay = (date: Date): string => date.toISOString().slice(0, 10);

/** The first instant of the chart's first day. */
export function chartStart(now: Date, days = CHART_DAYS): Date {
    const start = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
    start.setUTCDate(start.getUTCDate() - (days - 1));
    return start;
}

export function dayBuckets(now: Date, answer: { bucket: string; count: number }[], days = CHART_DAYS): DayCount[] {
    const counts = new Map<string, number>();
    // a bucket is summed over the other grouped dimensions (the realm is always grouped)
    for (const row of answer) counts.set(row.bucket.slice(0, 10), (counts.get(row.bucket.slice(0, 10)) ?? 0) + Number(row.count));
    const start = chartStart(now, days);
    return Array.from({ length: days }, (_, index) => {
        const day = utcDay(new Date(start.getTime() + index * 86_400_000));
        return { day, count: counts.get(day) ?? 0 };
    });
}
