/**
 * A realm's colour on its sign-in pages. The pages' CSP allows no inline style (`style-src 'self'`),
 * so the colour reaches them as a stylesheet of its own (`/realms/:realm/branding.css`, linked after
 * `/assets/auth.css`) setting the custom properties that stylesheet reads.
 */

const HEX_COLOR = /^#([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})$/i;

/** WCAG 2.2 "relative luminance" of an sRGB colour `#rrggbb`: 0 for black, 1 for white. */
export function relativeLuminance(color: string): number {
    const match = HEX_COLOR.exec(color);
    if (!match) throw new Error(`not a #rrggbb colour: ${color}`);
    const [red, green, blue] = match.slice(1).map((hex) => {
        const channel = parseInt(hex, 16) / 255;
        return channel <= 0.04045 ? channel / 12.92 : ((channel + 0.055) / 1.055) ** 2.4;
    }) as [number, number, number];
    return 0.2126 * red + 0.7152 * green + 0.0722 * blue;
}

/** WCAG 2.2 "contrast ratio" of two relative luminances: (L1 + 0.05) / (L2 + 0.05), the lighter over the darker. */
const contrast = (a: number, b: number): number => (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);

/** The text colour on a button of `background`: black or white, whichever contrasts more (WCAG 2.2 SC 1.4.3). */
export function textColorOn(background: string): '#000000' | '#ffffff' {
    const luminance = relativeLuminance(background);
    return contrast(luminance, 0) > contrast(luminance, 1) ? '#000000' : '#ffffff';
}

/**
 * The realm's stylesheet: the primary colour and the text colour on it as custom properties. The
 * colour was validated as `#rrggbb` on write (domains/realm-branding.ts) and is checked again here,
 * so nothing but a colour is ever written into the sheet.
 */
export function brandingStylesheet(primaryColor: string): string {
    const color = primaryColor.toLowerCase();
    return `:root{--rg-primary:${color};--rg-on-primary:${textColorOn(color)}}\n`;
}
