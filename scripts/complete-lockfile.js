#!/usr/bin/env node
// The registry this project is developed against serves only the linux-x64 builds of platform packages (swc,
// turbo, ...), so `npm install` leaves the other platforms' optional packages out of package-lock.json, and
// `npm ci` then refuses the lock. This adds those entries back (optional, with their os/cpu read from the
// package name) so `npm ci` works here and on other platforms. Run after `npm install` changes the lock:
// `node scripts/complete-lockfile.js`.
const fs = require('node:fs');
const path = require('node:path');

const lockPath = path.join(__dirname, '..', 'package-lock.json');
const lock = JSON.parse(fs.readFileSync(lockPath, 'utf8'));
const packages = lock.packages;

const osOf = { darwin: 'darwin', win32: 'win32', windows: 'win32', linux: 'linux', freebsd: 'freebsd', android: 'android', openharmony: 'openharmony' };
const cpuOf = { arm64: 'arm64', x64: 'x64', 64: 'x64', ia32: 'ia32', arm: 'arm', ppc64: 'ppc64', s390x: 's390x', riscv64: 'riscv64', loong64: 'loong64' };

function platformOf(name) {
  const parts = name.split('/').pop().split('-');
  const os = parts.map((p) => osOf[p]).find(Boolean);
  const cpu = parts.map((p) => cpuOf[p]).find(Boolean);
  const libc = parts.includes('musl') || parts.includes('musleabihf') ? 'musl' : parts.includes('gnu') || parts.includes('gnueabihf') ? 'glibc' : undefined;
  return { ...(os && { os: [os] }), ...(cpu && { cpu: [cpu] }), ...(libc && { libc: [libc] }) };
}

let added = 0;
for (const [location, entry] of Object.entries(packages)) {
  for (const [name, spec] of Object.entries(entry.optionalDependencies ?? {})) {
    const nested = `${location ? `${location}/` : ''}node_modules/${name}`;
    if (packages[nested] || packages[`node_modules/${name}`]) continue;
    if (!/^\d+\.\d+\.\d+(-[\w.]+)?$/.test(spec)) continue; // only exact pins can be written without the registry
    packages[`node_modules/${name}`] = { version: spec, optional: true, ...platformOf(name) };
    added += 1;
  }
}
fs.writeFileSync(lockPath, `${JSON.stringify(lock, null, 2)}\n`);
console.log(`package-lock.json: added ${added} optional platform entries`);
