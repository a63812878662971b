// Opens the docs site that scripts/docs built (target/docs-site) in headless Chromium, served on
// 127.0.0.1, and checks it as a reader would: every page of docs/SUMMARY.md loads and renders its
// title and heading with no script error, every internal link (and its #fragment) leads to
// something that exists, search finds a rule by its code, and the FL900 page is saved as a
// screenshot (target/docs-site/FL900.png), as are Getting started and a reference page with its
// examples' marks and highlighted .flow (getting-started.png, reference-marks.png). With FLOWC_SARIF (a `flowc check --format sarif` log),
// every rule's helpUri is a page of this site. Run by scripts/e2e/docs.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { readFileSync, existsSync, statSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, extname, resolve, normalize, sep } from 'node:path';
import { chromium } from 'playwright-core';

const root = resolve(import.meta.dirname, '..', '..');
const site = resolve(process.env.FLOWC_DOCS_SITE || join(root, 'target', 'docs-site'));
const chromiumPath = process.env.FLOWC_CHROMIUM || '/usr/bin/chromium';

const TYPES = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.css': 'text/css',
  '.svg': 'image/svg+xml', '.png': 'image/png', '.json': 'application/json',
  '.woff': 'font/woff', '.woff2': 'font/woff2', '.ttf': 'font/ttf', '.txt': 'text/plain',
};

/** The file of the site a URL path names, or null (never outside the site). */
function fileOf(urlPath) {
  let p = decodeURIComponent(urlPath.split('?')[0].split('#')[0]);
  if (p.endsWith('/')) p += 'index.html';
  const f = normalize(join(site, p));
  if (f !== site && !f.startsWith(site + sep)) return null;
  return existsSync(f) && statSync(f).isFile() ? f : null;
}

/** The pages docs/SUMMARY.md lists, as site paths (`rules/FL900.html`). */
function summaryPages() {
  const summary = readFileSync(join(root, 'docs', 'SUMMARY.md'), 'utf8');
  const pages = [...summary.matchAll(/\]\(([^)]+\.md)\)/g)].map((m) =>
    m[1].replace(/(^|\/)README\.md$/, '$1index.md').replace(/\.md$/, '.html'));
  return [...new Set(pages)];
}

let server;
let base;
let context;
let userData;
const requested = [];

before(async () => {
  assert.ok(existsSync(join(site, 'index.html')), `${site} has no index.html: run scripts/docs`);
  server = createServer((req, res) => {
    requested.push(req.url);
    const f = fileOf(new URL(req.url, 'http://x').pathname);
    if (!f) { res.writeHead(404); res.end('not found'); return; }
    res.writeHead(200, { 'content-type': TYPES[extname(f)] || 'application/octet-stream' });
    res.end(readFileSync(f));
  });
  await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
  base = `http://127.0.0.1:${server.address().port}/`;
  userData = mkdtempSync(join(tmpdir(), 'flowc-docs-chromium-'));
  context = await chromium.launchPersistentContext(userData, {
    executablePath: chromiumPath,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    viewport: { width: 1280, height: 900 },
  });
  // Nothing but the site on 127.0.0.1 is ever fetched.
  await context.route('**/*', (route) =>
    route.request().url().startsWith(base) ? route.continue() : route.abort());
});

after(async () => {
  await context?.close();
  server?.close();
  if (userData) rmSync(userData, { recursive: true, force: true });
});

/**
 * Open one page and let its scripts finish (the sidebar, the search index), so no fetch of one
 * page is cut off by the next navigation; return its script errors. An HTTP error fails.
 */
async function open(page, path) {
  const errors = [];
  const onError = (e) => errors.push(String(e));
  page.on('pageerror', onError);
  try {
    const res = await page.goto(base + path, { waitUntil: 'networkidle' });
    assert.equal(res?.status(), 200, `${path}: HTTP ${res?.status()}`);
  } finally {
    page.off('pageerror', onError);
  }
  return errors;
}

test('the link check is a real check: a missing page and a missing anchor fail', () => {
  assert.equal(fileOf('/rules/FL900.html') !== null, true);
  assert.equal(fileOf('/rules/FL999.html'), null);
  assert.equal(fileOf('/../../etc/passwd'), null);
  const fl900 = readFileSync(fileOf('/rules/FL900.html'), 'utf8');
  assert.ok(fl900.includes('id="fl900-guarantee-below-requirement"'));
  assert.ok(!fl900.includes('id="no-such-heading"'));
});

test('every page loads, renders, and links only to what exists', async () => {
  const pages = summaryPages();
  assert.ok(pages.length >= 70, `only ${pages.length} pages in docs/SUMMARY.md`);
  assert.ok(pages.includes('rules/FL900.html') && pages.includes('reference/language.html'));
  const page = await context.newPage();
  const broken = [];
  const ids = new Map(); // site path -> the ids its rendered page has
  const links = [];      // [from, site path, fragment]
  for (const path of pages) {
    assert.ok(fileOf('/' + path), `${path} was not built`);
    const errors = await open(page, path);
    assert.deepEqual(errors, [], `${path}: script errors`);
    const seen = await page.evaluate(() => ({
      title: document.title,
      h1: document.querySelector('main h1')?.textContent?.trim() ?? '',
      ids: [...document.querySelectorAll('[id]')].map((e) => e.id),
      hrefs: [...document.querySelectorAll('main a[href], nav a[href]')].map((a) => a.href),
    }));
    assert.ok(seen.title.endsWith(' - flowc') || seen.title === 'flowc', `${path}: title ${seen.title}`);
    assert.ok(seen.h1.length > 0, `${path}: no heading rendered`);
    ids.set(path, new Set(seen.ids));
    for (const href of seen.hrefs) {
      if (!href.startsWith(base)) continue; // an outside link: not followed
      const u = new URL(href);
      const target = u.pathname.slice(1) || 'index.html';
      links.push([path, target.endsWith('/') ? target + 'index.html' : target, decodeURIComponent(u.hash.slice(1))]);
    }
  }
  for (const [from, target, fragment] of links) {
    if (!fileOf('/' + target)) { broken.push(`${from} -> ${target}: no such file`); continue; }
    if (!fragment || !target.endsWith('.html')) continue;
    if (!ids.has(target)) {
      const errors = await open(page, target);
      assert.deepEqual(errors, [], `${target}: script errors`);
      ids.set(target, new Set(await page.evaluate(() => [...document.querySelectorAll('[id]')].map((e) => e.id))));
    }
    if (!ids.get(target).has(fragment)) broken.push(`${from} -> ${target}#${fragment}: no such anchor`);
  }
  assert.deepEqual(broken, [], 'broken internal links');
  assert.ok(links.length > pages.length, `only ${links.length} internal links seen`);
  const anchored = links.filter(([, , f]) => f).length;
  console.log(`${pages.length} pages, ${links.length} internal links (${anchored} with an anchor), none broken`);
  await page.close();
});

test('search finds a rule by its code', async () => {
  const page = await context.newPage();
  assert.deepEqual(await open(page, 'index.html'), []);
  await page.click('#mdbook-search-toggle');
  // Typed key by key, as a reader does: mdBook searches on key events.
  await page.locator('#mdbook-searchbar').pressSequentially('FL900');
  const hit = page.locator('#mdbook-searchresults a[href*="rules/FL900.html"]').first();
  await hit.waitFor({ state: 'visible', timeout: 10000 });
  assert.match(await page.locator('#mdbook-searchresults-header').innerText(), /\d+ search results? for 'FL900'/);
  // The first result is the rule's own page, and it opens.
  const first = page.locator('#mdbook-searchresults li a').first();
  assert.match(await first.getAttribute('href'), /^rules\/FL900\.html/);
  await first.click();
  await page.waitForURL(/rules\/FL900\.html/);
  assert.equal(await page.locator('main h1').first().innerText(), 'FL900 guarantee-below-requirement');
  // A word no page has finds nothing.
  await page.goto(base + 'index.html');
  await page.click('#mdbook-search-toggle');
  await page.locator('#mdbook-searchbar').pressSequentially('zzqxjv');
  await page.waitForFunction(() => /no search results/i.test(
    document.querySelector('#mdbook-searchresults-header')?.textContent ?? ''), null, { timeout: 10000 });
  assert.equal(await page.locator('#mdbook-searchresults li').count(), 0);
  await page.close();
});

test('the FL900 page renders, and its screenshot is saved', async () => {
  const page = await context.newPage();
  assert.deepEqual(await open(page, 'rules/FL900.html'), []);
  const h1 = await page.locator('main h1').first().innerText();
  assert.equal(h1, 'FL900 guarantee-below-requirement');
  assert.ok(await page.locator('main pre code').count() > 0, 'the page shows its examples');
  // The sidebar (built by script) marks this page as the current one.
  await page.locator('.sidebar a.active[href$="rules/FL900.html"]').first().waitFor({ timeout: 10000 });
  const shot = join(site, 'FL900.png');
  await page.screenshot({ path: shot, fullPage: false });
  assert.ok(statSync(shot).size > 10000, 'the screenshot is not blank');
  await page.close();
});

test("every rule's SARIF helpUri is its page of the site", { skip: !process.env.FLOWC_SARIF }, async () => {
  const sarif = JSON.parse(readFileSync(process.env.FLOWC_SARIF, 'utf8'));
  const rules = sarif.runs[0].tool.driver.rules;
  assert.ok(rules.length >= 50, `only ${rules.length} rules in the SARIF log`);
  const siteRoot = process.env.FLOWC_DOCS_URL || 'https://flowc.dev/';
  const page = await context.newPage();
  for (const r of rules) {
    assert.ok(r.helpUri.startsWith(siteRoot), `${r.id}: ${r.helpUri} is not under ${siteRoot}`);
    const path = r.helpUri.slice(siteRoot.length);
    assert.equal(path, `rules/${r.id}.html`);
    assert.ok(fileOf('/' + path), `${r.id}: ${path} is not in the built site`);
  }
  // One opened as a reader would follow it from a code-scanning alert.
  const fl900 = rules.find((r) => r.id === 'FL900');
  assert.deepEqual(await open(page, fl900.helpUri.slice(siteRoot.length)), []);
  assert.equal(await page.locator('main h1').first().innerText(), 'FL900 guarantee-below-requirement');
  await page.close();
});

test('Getting started comes first, before the guides and, last, the rules; its screenshot is saved', async () => {
  const page = await context.newPage();
  assert.deepEqual(await open(page, 'getting-started.html'), []);
  assert.equal(await page.locator('main h1').first().innerText(), 'Getting started');
  assert.ok(await page.locator('main pre code.language-sh').count() >= 4, 'the page shows its commands');
  // The sidebar's order, as a reader sees it: Getting started, the guides, the reference, rules last.
  const order = await page.evaluate(() => [...document.querySelectorAll('.sidebar a[href]')]
    .map((a) => new URL(a.href).pathname.replace(/^\//, '')));
  const at = (p) => order.findIndex((h) => h.endsWith(p));
  assert.ok(at('getting-started.html') >= 0, `no Getting started in ${order.slice(0, 5)}`);
  assert.ok(at('getting-started.html') < at('tooling.html'));
  assert.ok(at('tooling.html') < at('reference/language.html'));
  assert.ok(at('reference/language.html') < at('rules/FL001.html'));
  assert.ok(at('contributing.html') < at('rules/FL001.html'), 'the rules come after the guides and notes');
  const shot = join(site, 'getting-started.png');
  await page.screenshot({ path: shot, fullPage: false });
  assert.ok(statSync(shot).size > 10000, 'the screenshot is not blank');
  await page.close();
});

test('reference examples show their marks and highlighted .flow; the screenshot is saved', async () => {
  const page = await context.newPage();
  assert.deepEqual(await open(page, 'reference/language.html'), []);
  const clean = page.locator('main .flow-mark-clean');
  const finding = page.locator('main .flow-mark-finding');
  assert.ok(await clean.count() >= 10, `only ${await clean.count()} clean marks`);
  assert.ok(await finding.count() >= 10, `only ${await finding.count()} finding marks`);
  assert.equal(await clean.first().innerText(), 'flowc check: no finding');
  assert.match(await finding.first().innerText(), /^flowc (check|build --target \w+): FL\d{3}/);
  await clean.first().scrollIntoViewIfNeeded();
  assert.ok(await clean.first().isVisible(), 'the mark is visible');
  // Every .flow block is highlighted: keywords in their own colour, comments and strings marked.
  const colours = await page.evaluate(() => {
    const block = [...document.querySelectorAll('main code.language-flow')]
      .find((b) => b.querySelector('.hljs-keyword') && b.querySelector('.hljs-string'));
    if (!block) return null;
    const colour = (e) => getComputedStyle(e).color;
    return {
      keyword: colour(block.querySelector('.hljs-keyword')),
      string: colour(block.querySelector('.hljs-string')),
      plain: colour(block),
      unhighlighted: [...document.querySelectorAll('main code.language-flow')]
        .filter((b) => !b.querySelector('[class^="hljs-"]')).length,
    };
  });
  assert.ok(colours, 'no .flow block with a highlighted keyword and string');
  assert.notEqual(colours.keyword, colours.plain, 'keywords are coloured');
  assert.notEqual(colours.string, colours.plain, 'strings are coloured');
  assert.equal(colours.unhighlighted, 0, 'every .flow block is highlighted');
  const shot = join(site, 'reference-marks.png');
  await page.screenshot({ path: shot, fullPage: false });
  assert.ok(statSync(shot).size > 10000, 'the screenshot is not blank');
  await page.close();
});
