// The exported lab's backend: the simulator, compiled to WebAssembly, runs
// in the page. It answers the same requests as the served lab's API, with
// the same code (cmd/internal/labwasm), so app.js calls it in their place.
"use strict";

window.labBackend = (() => {
  const ready = (async () => {
    const manifest = await (await fetch("redlocksim-lab.json", { cache: "no-cache" })).json();
    const r = await fetch("lab.wasm.gz");
    if (!r.ok) throw new Error("lab.wasm.gz: " + r.status + " " + r.statusText);
    let bytes = new Uint8Array(await r.arrayBuffer());
    // A host that sends the file with Content-Encoding: gzip has had the
    // browser decompress it already; otherwise it starts with gzip's magic.
    if (bytes[0] === 0x1f && bytes[1] === 0x8b) {
      const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
      bytes = new Uint8Array(await new Response(stream).arrayBuffer());
    }
    const go = new Go();
    go.argv = ["redlocksim-lab", manifest.version];
    const { instance } = await WebAssembly.instantiate(bytes, go.importObject);
    go.run(instance); // registers redlocksimLab, then waits for calls
    if (typeof globalThis.redlocksimLab !== "function") throw new Error("the simulator did not start");
  })();
  return {
    ready,
    // call answers a request (api/run?...) as {status, type, body}.
    async call(target, client) {
      await ready;
      return globalThis.redlocksimLab(target, client || "");
    },
  };
})();
