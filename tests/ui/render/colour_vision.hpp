#pragma once
// Colour-vision deficiency simulation and colour differences for the colormap tests (Qt-free).
//
// Simulation: G. M. Machado, M. M. Oliveira, L. A. F. Fernandes, "A Physiologically-based Model
// for Simulation of Color Vision Deficiency", IEEE TVCG 15(6), 2009: one 3 x 3 matrix per
// deficiency (severity 1.0: protanopia, deuteranopia, tritanopia), applied to linear sRGB.
// Colour space: sRGB (IEC 61966-2-1) to CIE XYZ to CIELAB (CIE 15:2004), D65 white.
// Difference: CIEDE2000 as written out by G. Sharma, W. Wu, E. N. Dalal, "The CIEDE2000
// Color-Difference Formula: Implementation Notes, Supplementary Test Data, and Mathematical
// Observations", Color Research & Application 30(1), 2005 (equations 1-22).

#include <array>

namespace qkv::test {

enum class VisionDeficiency { None, Protanopia, Deuteranopia, Tritanopia };

using LinearRgb = std::array<double, 3>;  // linear-light sRGB, each in [0, 1]

struct Lab {
    double L = 0, a = 0, b = 0;
};

// 0xRRGGBB (8 bits a channel, the colormap tables' format) to linear light.
LinearRgb linearFromRgb(unsigned rgb);
// What a viewer with `deficiency` sees, as the linear sRGB colour a normal viewer would match
// it with (Machado et al. 2009, severity 1), clamped to the displayable range.
LinearRgb simulate(const LinearRgb& colour, VisionDeficiency deficiency);
// CIELAB (D65) of a linear sRGB colour.
Lab labFromLinear(const LinearRgb& colour);
// CIEDE2000 difference, kL = kC = kH = 1 (Sharma et al. 2005).
double ciede2000(const Lab& first, const Lab& second);

// CIELAB of 0xRRGGBB as seen with `deficiency`.
Lab seenLab(unsigned rgb, VisionDeficiency deficiency);

const char* deficiencyName(VisionDeficiency deficiency);

}  // namespace qkv::test
