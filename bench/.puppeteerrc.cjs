// memlab (a measured peer, dev only) pulls in puppeteer, whose install would download a Chrome; this machine has no
// internet beyond the npm registry, and the benchmarks point memlab at the system Chromium instead.
module.exports = { skipDownload: true };
