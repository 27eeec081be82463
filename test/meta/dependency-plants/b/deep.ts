// Planted: reached past b/index.ts.
export const deep = 1;
