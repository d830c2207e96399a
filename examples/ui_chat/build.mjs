// Bundles web/main.jsx (React, @ai-sdk/react, ai) into static/app.js with esbuild: no CDN.
//   node build.mjs [--modules <node_modules folder>] [--out <file>]
// The packages come from ./node_modules (npm ci here) unless --modules names another folder.
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const option = (name, fallback) => (args.includes(name) ? args[args.indexOf(name) + 1] : fallback);
const modules = resolve(option('--modules', join(here, 'node_modules')));
const outfile = resolve(option('--out', join(here, 'static', 'app.js')));

const esbuild = createRequire(join(modules, 'noop.js'))('esbuild');
await esbuild.build({
  entryPoints: [join(here, 'web', 'main.jsx')],
  bundle: true,
  format: 'iife',
  minify: true,
  jsx: 'automatic',
  target: 'es2022',
  nodePaths: [modules],
  define: { 'process.env.NODE_ENV': '"production"' },
  outfile,
  logLevel: 'warning',
});
console.log(outfile);
