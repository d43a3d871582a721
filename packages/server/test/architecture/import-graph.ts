import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';

/** One import of a source file: the importing and imported files, relative to the source root. */
export interface ImportEdge {
    from: string;
    to: string;
    typeOnly: boolean;
}

/** The non-test TypeScript files under `root`. */
export function sourceFiles(root: string): string[] {
    const found: string[] = [];
    for (const entry of readdirSync(root, { withFileTypes: true })) {
        const path = join(root, entry.name);
        if (entry.isDirectory()) found.push(...sourceFiles(path));
        else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts')) found.push(path);
    }
    return found;
}

function isTypeOnly(statement: ts.Statement): boolean {
    if (ts.isImportDeclaration(statement)) {
        const clause = statement.importClause;
        if (!clause) return false;
        if (clause.isTypeOnly) return true;
        const bindings = clause.namedBindings;
        return !clause.name && !!bindings && ts.isNamedImports(bindings) && bindings.elements.length > 0 &&
            bindings.elements.every((element) => element.isTypeOnly);
    }
    if (ts.isExportDeclaration(statement)) return statement.isTypeOnly;
    return false;
}

/**
 * The relative imports of every non-test source file under `root`, parsed with the TypeScript
 * compiler (not a regular expression), dynamic `import()` included.
 */
export function importGraph(root: string): ImportEdge[] {
    const edges: ImportEdge[] = [];
    for (const file of sourceFiles(root)) {
        const text = readFileSync(file, 'utf8');
        const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false);
        const add = (specifier: string, typeOnly: boolean): void => {
            if (!specifier.startsWith('.')) return;
            const target = resolve(dirname(file), specifier.replace(/\.js$/, '.ts'));
            edges.push({ from: relative(root, file), to: relative(root, target), typeOnly });
        };
        const visit = (node: ts.Node): void => {
            if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
                add(node.moduleSpecifier.text, isTypeOnly(node));
            } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
                const [argument] = node.arguments;
                if (argument && ts.isStringLiteral(argument)) add(argument.text, false);
            }
            ts.forEachChild(node, visit);
        };
        visit(source);
    }
    return edges;
}

/** The layer a file belongs to: its top folder, or for a file at the root its name without `.ts`. */
export function layerOf(path: string): string {
    const [top, ...rest] = path.split('/');
    return rest.length === 0 ? top!.replace(/\.ts$/, '') : top!;
}

/** Strongly connected components of more than one file (Tarjan): each one is an import cycle. */
export function importCycles(edges: ImportEdge[]): string[][] {
    const next = new Map<string, string[]>();
    for (const edge of edges) next.set(edge.from, [...(next.get(edge.from) ?? []), edge.to]);
    const index = new Map<string, number>();
    const low = new Map<string, number>();
    const stack: string[] = [];
    const onStack = new Set<string>();
    const cycles: string[][] = [];
    let counter = 0;
    const connect = (node: string): void => {
        index.set(node, counter);
        low.set(node, counter);
        counter += 1;
        stack.push(node);
        onStack.add(node);
        for (const target of next.get(node) ?? []) {
            if (!index.has(target)) {
                connect(target);
                low.set(node, Math.min(low.get(node)!, low.get(target)!));
            } else if (onStack.has(target)) {
                low.set(node, Math.min(low.get(node)!, index.get(target)!));
            }
        }
        if (low.get(node) === index.get(node)) {
            const component: string[] = [];
            let member: string;
            do {
                member = stack.pop()!;
                onStack.delete(member);
                component.push(member);
            } while (member !== node);
            if (component.length > 1) cycles.push(component.sort());
        }
    };
    for (const node of [...next.keys()].sort()) if (!index.has(node)) connect(node);
    return cycles;
}

/**
 * The allowed-imports table of `docs/architecture.md`: the rows of the table whose header is
 * `| layer | may import |`, each naming a layer in backticks and the layers it may import.
 */
export function allowedImports(markdown: string): Map<string, Set<string>> {
    const lines = markdown.split('\n');
    const header = lines.findIndex((line) => /^\|\s*layer\s*\|\s*may import\s*\|/i.test(line));
    if (header < 0) throw new Error('docs/architecture.md has no "| layer | may import |" table');
    const table = new Map<string, Set<string>>();
    for (const line of lines.slice(header + 2)) {
        if (!line.startsWith('|')) break;
        const [, layerCell = '', allowedCell = ''] = line.split('|');
        const names = (cell: string): string[] => [...cell.matchAll(/`([^`]+)`/g)].map((match) => match[1]!);
        for (const layer of names(layerCell)) table.set(layer, new Set(names(allowedCell)));
    }
    return table;
}
