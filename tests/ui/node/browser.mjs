// The example app in a real browser: Debian's headless Chromium, driven by playwright-core.
// Loads the page, sends the demo prompt, watches the streamed text, the tool calls with their
// output and the chart image, presses Approve, and waits for the run to finish.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { readJob, writeResult } from './common.mjs';

const job = await readJob();
const profile = mkdtempSync(join(tmpdir(), 'toolwire-chromium-'));
const context = await chromium.launchPersistentContext(profile, {
  executablePath: job.chromium,
  headless: true,
  args: [
    '--headless',
    '--no-sandbox',
    '--disable-gpu',
    '--disable-quic',
    '--no-first-run',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
  ],
});
const seen = { consoleErrors: [], steps: [] };
try {
  const page = context.pages()[0] ?? (await context.newPage());
  page.on('console', (message) => message.type() === 'error' && seen.consoleErrors.push(message.text()));
  page.on('pageerror', (error) => seen.consoleErrors.push(String(error)));
  const timeout = 20000;
  await page.goto(job.url);
  await page.getByRole('button', { name: 'Send' }).click();
  seen.steps.push('sent');

  const firstText = page.locator('.message.assistant .text').first();
  await firstText.waitFor({ timeout });
  seen.streamedText = await firstText.textContent();

  const chart = page.locator('[data-tool="make_chart"][data-state="output-available"]');
  await chart.waitFor({ timeout });
  seen.chartOutput = await chart.locator('.output').textContent();
  const image = chart.locator('img.chart');
  await image.waitFor({ timeout });
  seen.imageLoaded = await image.evaluate((element) => element.complete && element.naturalWidth > 0);
  seen.imageSource = (await image.getAttribute('src')).slice(0, 30);

  const weather = page.locator('[data-tool="get_weather"]');
  await weather.locator('button', { hasText: 'Approve' }).waitFor({ timeout });
  seen.weatherStateBefore = await weather.getAttribute('data-state');
  await weather.getByRole('button', { name: 'Approve' }).click();
  seen.steps.push('approved');

  await page.locator('[data-tool="get_weather"][data-state="output-available"]').waitFor({ timeout });
  seen.weatherOutput = await weather.locator('.output').textContent();
  const finished = page.locator('.message.assistant .finished');
  await finished.waitFor({ timeout });
  seen.finished = await finished.textContent();
  await page.locator('.status[data-status="ready"]').waitFor({ timeout });
  seen.texts = await page.locator('.message.assistant .text').allTextContents();
  seen.assistantMessages = await page.locator('.message.assistant').count();
  seen.steps.push('finished');
} catch (error) {
  seen.failure = String(error.message ?? error);
} finally {
  await context.close();
  rmSync(profile, { recursive: true, force: true });
}
writeResult(seen);
