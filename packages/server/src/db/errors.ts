/**
 * One view of constraint violations across SQLite, PostgreSQL and MySQL/MariaDB (DESIGN.md §3
 * db/: error normalisation), so services map them to 409/400 without knowing the dialect.
 */
export type DbErrorKind = 'unique' | 'foreign_key' | 'not_null' | 'check';

export interface DbErrorClass {
    kind: DbErrorKind;
    /** constraint or index name, where the driver reports one (PostgreSQL, MySQL) */
    constraint?: string;
    /** the columns involved, where the driver reports them (SQLite, not-null on every dialect) */
    columns?: string[];
}

interface DriverError {
    code?: unknown;
    errno?: unknown;
    message?: unknown;
    constraint?: unknown;
    column?: unknown;
    cause?: unknown;
}

const SQLITE: Record<string, DbErrorKind> = {
    SQLITE_CONSTRAINT_UNIQUE: 'unique',
    SQLITE_CONSTRAINT_PRIMARYKEY: 'unique',
    SQLITE_CONSTRAINT_FOREIGNKEY: 'foreign_key',
    SQLITE_CONSTRAINT_NOTNULL: 'not_null',
    SQLITE_CONSTRAINT_CHECK: 'check',
};

const POSTGRES: Record<string, DbErrorKind> = {
    '23505': 'unique',
    '23503': 'foreign_key',
    '23502': 'not_null',
    '23514': 'check',
    // a value longer than its column: the schemas cap lengths first, this is the backstop
    '22001': 'check',
};

const MYSQL: Record<number, DbErrorKind> = {
    1062: 'unique', // ER_DUP_ENTRY
    1586: 'unique', // ER_DUP_ENTRY_WITH_KEY_NAME
    1451: 'foreign_key', // ER_ROW_IS_REFERENCED_2 (delete/update of a referenced parent)
    1452: 'foreign_key', // ER_NO_REFERENCED_ROW_2 (child points nowhere)
    1216: 'foreign_key', // ER_NO_REFERENCED_ROW (older servers)
    1217: 'foreign_key', // ER_ROW_IS_REFERENCED (older servers)
    1048: 'not_null', // ER_BAD_NULL_ERROR
    1364: 'not_null', // ER_NO_DEFAULT_FOR_FIELD (strict mode, column omitted)
    3819: 'check', // ER_CHECK_CONSTRAINT_VIOLATED (MySQL 8)
    4025: 'check', // ER_CONSTRAINT_FAILED (MariaDB)
    1406: 'check', // ER_DATA_TOO_LONG: the schemas cap lengths first, this is the backstop
};

/** Classifies a driver error as a constraint violation, or null for anything else. */
export function classifyDbError(error: unknown): DbErrorClass | null {
    // Wrappers (ours or a driver's) keep the original under `cause`; look a few levels down.
    let current: unknown = error;
    for (let depth = 0; depth < 4 && typeof current === 'object' && current !== null; depth++) {
        const found = classifyOne(current as DriverError);
        if (found) return found;
        current = (current as DriverError).cause;
    }
    return null;
}

function classifyOne(error: DriverError): DbErrorClass | null {
    const message = typeof error.message === 'string' ? error.message : '';
    if (typeof error.code === 'string' && error.code.startsWith('SQLITE_CONSTRAINT')) {
        const kind = SQLITE[error.code];
        if (!kind) return null;
        // "UNIQUE constraint failed: auth_roles.name, auth_roles.client_key"
        const columns = /constraint failed: (.+)$/i.exec(message)?.[1]?.split(',').map((column) => column.trim());
        return columns && kind !== 'foreign_key' ? { kind, columns } : { kind };
    }
    if (typeof error.errno === 'number' && error.errno in MYSQL && typeof error.code === 'string' && error.code.startsWith('ER_')) {
        return mysqlClass(MYSQL[error.errno] as DbErrorKind, message);
    }
    if (typeof error.code === 'string' && /^\d{5}$/.test(error.code) && error.code in POSTGRES) {
        const result: DbErrorClass = { kind: POSTGRES[error.code] as DbErrorKind };
        if (typeof error.constraint === 'string') result.constraint = error.constraint;
        if (typeof error.column === 'string') result.columns = [error.column];
        return result;
    }
    return null;
}

function mysqlClass(kind: DbErrorKind, message: string): DbErrorClass {
    if (kind === 'unique') {
        // MariaDB: "... for key 'name'"; MySQL 8: "... for key 'table.name'".
        const key = /for key '([^']+)'/.exec(message)?.[1];
        return key ? { kind, constraint: key.slice(key.lastIndexOf('.') + 1) } : { kind };
    }
    if (kind === 'foreign_key') {
        const constraint = /CONSTRAINT `([^`]+)`/.exec(message)?.[1];
        return constraint ? { kind, constraint } : { kind };
    }
    if (kind === 'not_null') {
        const column = /(?:Column|Field) '([^']+)'/.exec(message)?.[1];
        return column ? { kind, columns: [column] } : { kind };
    }
    const constraint = /constraint '?`?([^'`]+)`?'? (?:is violated|failed)/i.exec(message)?.[1];
    return constraint ? { kind, constraint } : { kind };
}
