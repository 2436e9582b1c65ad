/**
 * The dashboard's security headers: one constant for the local server (`/` and the static files)
 * and for the CloudFront response headers policy in stacks/, so both origins answer the same.
 * `Strict-Transport-Security` is CloudFront's alone (the local server speaks plain HTTP).
 * uPlot and Radix set inline styles through the CSSOM (element.style), which `style-src 'self'` allows.
 */
export const DASHBOARD_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'Content-Security-Policy':
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self' ws: wss:; frame-ancestors 'none'; base-uri 'none'; form-action 'self'; object-src 'none'",
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'X-Frame-Options': 'DENY',
});
