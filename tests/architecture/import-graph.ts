// The import graph of the repository's TypeScript, type-only imports included, and its circles. A small reader of
// import lines rather than madge or dpdm: both parse through the TypeScript compiler's JavaScript API, which the
// native TypeScript 7 we type-check with no longer ships, so they would bring a second, older compiler; our imports
// are plain specifiers (relative paths with their extension, or a workspace's exports map), which a pattern reads.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

export const root = path.resolve(__dirname, '../..');
const workspaceDirs = ['apps', 'packages'].flatMap((group) => readdirSync(path.join(root, group)).map((name) => `${group}/${name}`));

/** Each workspace's package name -> its exports map (subpath -> file), as absolute paths. */
const exportsByName = new Map(
  workspaceDirs.map((dir) => {
    const pkg = JSON.parse(readFileSync(path.join(root, dir, 'package.json'), 'utf8')) as { name: string; exports?: Record<string, unknown> };
    const entries = Object.entries(pkg.exports ?? {}).filter((entry): entry is [string, string] => typeof entry[1] === 'string');
    return [pkg.name, new Map(entries.map(([subpath, file]) => [subpath, path.join(root, dir, file)]))];
  }),
);

/** Module specifiers a file imports (statically, dynamically, type-only) or re-exports; comment lines skipped. */
export function importsOf(file: string): string[] {
  const code = readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => !/^\s*(\/\/|\*|\/\*)/.test(line))
    .join('\n');
  return [...code.matchAll(/(?:\bfrom\s+|\bimport\s*\(\s*|\bimport\s+|\brequire\s*\(\s*)['"]([^'"]+)['"]/g)].map((match) => match[1]!);
}

/** The file `spec` names from `file`: a relative path, or a workspace package through its exports map; else undefined. */
export function resolveImport(file: string, spec: string): string | undefined {
  if (spec.startsWith('.')) {
    const base = path.resolve(path.dirname(file), spec);
    return [base, `${base}.ts`, `${base}.tsx`, path.join(base, 'index.ts')].find((candidate) => existsSync(candidate) && /\.tsx?$/.test(candidate));
  }
  const match = /^(@tidings\/[^/]+)(\/.*)?$/.exec(spec);
  return match ? exportsByName.get(match[1]!)?.get(`.${match[2] ?? ''}`) : undefined;
}

/** Every TypeScript file of the repository's code, tests and scripts (generated and installed code left out). */
export function typescriptFiles(): string[] {
  const dirs = [...workspaceDirs.flatMap((dir) => [`${dir}/src`, `${dir}/test`, `${dir}/scripts`]), 'scripts', 'bench', 'tests'];
  return dirs
    .map((dir) => path.join(root, dir))
    .filter((dir) => existsSync(dir))
    .flatMap((dir) => (readdirSync(dir, { recursive: true }) as string[]).map((file) => path.join(dir, file)))
    .filter((file) => /\.tsx?$/.test(file) && !/(^|\/)(node_modules|generated|dist)\//.test(path.relative(root, file)));
}

/** The files `file` imports that are in the repository. */
const importedFiles = (file: string) => importsOf(file).flatMap((spec) => resolveImport(file, spec) ?? []);

/**
 * The import circles among `files`: each a set of files that reach one another (Tarjan's strongly connected
 * components), as paths from the repository's root. `edgesOf` gives a file's imports (tests pass a made-up graph).
 */
export function circlesOf(files: string[], edgesOf: (file: string) => string[] = importedFiles): string[][] {
  const edges = new Map(files.map((file) => [file, edgesOf(file)]));
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const circles: string[][] = [];
  const visit = (file: string) => {
    index.set(file, index.size);
    low.set(file, index.get(file)!);
    stack.push(file);
    onStack.add(file);
    for (const next of edges.get(file) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(file, Math.min(low.get(file)!, low.get(next)!));
      } else if (onStack.has(next)) low.set(file, Math.min(low.get(file)!, index.get(next)!));
    }
    if (low.get(file) !== index.get(file)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== file);
    if (component.length > 1 || edges.get(file)?.includes(file)) circles.push(component.map((f) => (path.isAbsolute(f) ? path.relative(root, f) : f)).sort());
  };
  for (const file of files) if (!index.has(file)) visit(file);
  return circles;
}
