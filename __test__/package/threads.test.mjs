// The addon in four worker threads at once: each loads it, runs filters and
// checks on inputs that carry its own tag and checks its own answers
// (support/threads-worker.mjs). Then four more are terminated in the middle of
// their work, and one while it is still loading the addon. Everything runs
// in a child process, so that a crash in any thread, or a process that does
// not exit by itself afterwards, fails this test instead of the runner.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { it } from 'node:test';
import { inChild, root } from '../support/helpers.mjs';

const WORKER = join(root, '__test__', 'support', 'threads-worker.mjs');

it('four threads at once give their own right answers, and terminating them mid-work is clean', () => {
  const child = inChild(`
    import { Worker } from 'node:worker_threads';
    const file = ${JSON.stringify(WORKER)};

    function start(id, rounds) {
      // execArgv: [] drops the child's --input-type, which a worker file refuses.
      const worker = new Worker(file, { workerData: { id, rounds, report: 50 }, execArgv: [] });
      const state = { worker, reports: 0, done: false, error: null };
      state.exited = new Promise((resolve) => worker.on('exit', resolve));
      worker.on('message', (message) => {
        if (message.done !== undefined) state.done = message.done === rounds && message.id === id;
        else state.reports++;
      });
      worker.on('error', (error) => { state.error = error; });
      return state;
    }

    // Four threads that finish: every answer checked inside the worker.
    const finishing = [0, 1, 2, 3].map((id) => start(id, 10000));
    const codes = await Promise.all(finishing.map((s) => s.exited));
    for (const s of finishing) if (s.error) throw s.error;
    console.log('finished', codes.join(','), finishing.every((s) => s.done && s.reports === 200));

    // Four threads stopped mid-work, once each has reported twice.
    const endless = [4, 5, 6, 7].map((id) => start(id, 1e9));
    await new Promise((resolve, reject) => {
      const poll = setInterval(() => {
        const failed = endless.find((s) => s.error);
        if (failed) { clearInterval(poll); reject(failed.error); }
        if (endless.every((s) => s.reports >= 2)) { clearInterval(poll); resolve(); }
      }, 5);
    });
    const stopped = await Promise.all(endless.map((s) => s.worker.terminate()));
    console.log('terminated', stopped.join(','), endless.every((s) => !s.error && !s.done));

    // And one stopped before it has even loaded the addon.
    const early = start(8, 1e9);
    console.log('terminated early', typeof (await early.worker.terminate()));

    // The main thread still has a working addon.
    console.log(new m.ScaffoldingFilter().feed('main <|tool_call|>thread'));
  `, { timeout: 60_000 });
  assert.equal(child.signal, null, child.stderr);
  assert.equal(child.status, 0, child.stderr);
  assert.deepEqual(child.stdout.trim().split('\n'), [
    'finished 0,0,0,0 true',
    'terminated 1,1,1,1 true',
    'terminated early number',
    'main thread',
  ]);
});
