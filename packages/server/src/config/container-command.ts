/**
 * The container command is the CLI's own argument list (spec v1.0.0-beta.64 item 6); an older
 * image's `server` or `core` prefix before it is deprecated, still accepted, and removed in v1.0.0.
 * Shared by the CLI and the image's healthcheck, which reads the role from the same command line.
 */
const DEPRECATED_PREFIXES = ['server', 'core'] as const;

export interface ContainerCommand {
    /** the CLI's argument list, without a deprecated prefix */
    args: string[];
    /** the warning to print when a deprecated prefix was dropped */
    deprecation?: string;
}

export function withoutDeprecatedPrefix(argv: readonly string[]): ContainerCommand {
    const [first, ...rest] = argv;
    if (!(DEPRECATED_PREFIXES as readonly (string | undefined)[]).includes(first)) return { args: [...argv] };
    // the prefix alone ran the image's default command
    const args = rest.length > 0 ? rest : ['start'];
    return {
        args,
        deprecation: `Warning: the "${first}" prefix is deprecated and removed in v1.0.0; run "realmgate ${args.join(' ')}" instead.`,
    };
}
