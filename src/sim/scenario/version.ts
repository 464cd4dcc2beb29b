/** The scenario file format's version; a file names the one it was written for. */
export const SCENARIO_VERSION = 1;
