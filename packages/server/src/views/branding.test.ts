import { describe, expect, it } from 'vitest';
import { brandingStylesheet, relativeLuminance, textColorOn } from './branding.js';

/* A realm's primary colour: WCAG 2.2 relative luminance and the button text colour of the better contrast. */
describe('branding colours', () => {
    it('computes WCAG relative luminance', () => {
        expect(relativeLuminance('#000000')).toBe(0);
        expect(relativeLuminance('#FFFFFF')).toBeCloseTo(1, 10);
        // pure primaries weigh by the sRGB coefficients
        expect(relativeLuminance('#ff0000')).toBeCloseTo(0.2126, 4);
        expect(relativeLuminance('#00ff00')).toBeCloseTo(0.7152, 4);
        expect(relativeLuminance('#808080')).toBeCloseTo(0.2159, 3);
        expect(() => relativeLuminance('red')).toThrow();
    });

    it('puts black text on light colours and white text on dark ones, whichever contrasts more', () => {
        expect(textColorOn('#ffffff')).toBe('#000000');
        expect(textColorOn('#ffd700')).toBe('#000000');
        expect(textColorOn('#00ff00')).toBe('#000000');
        expect(textColorOn('#1d4ed8')).toBe('#ffffff');
        expect(textColorOn('#000000')).toBe('#ffffff');
        expect(textColorOn('#7f1d1d')).toBe('#ffffff');
        // around the crossover (L ≈ 0.179): #777777 (L 0.184) contrasts more with black, #767676 (L 0.181) too, #737373 (L 0.171) with white
        expect(textColorOn('#777777')).toBe('#000000');
        expect(textColorOn('#737373')).toBe('#ffffff');
    });

    it('writes nothing but the two custom properties into the stylesheet', () => {
        expect(brandingStylesheet('#FFD700')).toBe(':root{--rg-primary:#ffd700;--rg-on-primary:#000000}\n');
        expect(brandingStylesheet('#0b3d91')).toBe(':root{--rg-primary:#0b3d91;--rg-on-primary:#ffffff}\n');
        expect(() => brandingStylesheet('#fff;}body{x')).toThrow();
    });
});
