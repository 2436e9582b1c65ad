/**
 * The dashboard's security headers: one constant served by the local server for `/` and the
 * static files, and by the CloudFront response headers policy in stacks/. No inline script or
 * style: Vite emits files only, and React, uPlot and Radix set styles through the CSSOM.
 * Strict-Transport-Security is CloudFront-only (the local server speaks plain HTTP).
 */
export const DASHBOARD_HEADERS: Readonly<Record<string, string>> = {
  'Content-Security-Policy':
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self' ws: wss:; frame-ancestors 'none'; base-uri 'none'; form-action 'self'; object-src 'none'",
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'X-Frame-Options': 'DENY',
};
