import { z } from 'zod';

// Schemas check without compiling code at run time, so the app needs no 'unsafe-eval' in a Content-Security-Policy.
z.config({ jitless: true });

export { z };
