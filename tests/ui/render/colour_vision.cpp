#include "ui/render/colour_vision.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>

namespace qkv::test {
namespace {

using Matrix3 = std::array<std::array<double, 3>, 3>;

// Machado, Oliveira & Fernandes 2009, the severity-1.0 matrices of their supplementary table
// (rows give the simulated linear R, G, B from the original's).
constexpr Matrix3 kProtanopia{{{0.152286, 1.052583, -0.204868},
                               {0.114503, 0.786281, 0.099216},
                               {-0.003882, -0.048116, 1.051998}}};
constexpr Matrix3 kDeuteranopia{{{0.367322, 0.860646, -0.227968},
                                 {0.280085, 0.672501, 0.047413},
                                 {-0.011820, 0.042940, 0.968881}}};
constexpr Matrix3 kTritanopia{{{1.255528, -0.076749, -0.178779},
                               {-0.078411, 0.930809, 0.147602},
                               {0.004733, 0.691367, 0.303900}}};

// Linear sRGB to XYZ (IEC 61966-2-1, D65), and the D65 white with Y = 1.
constexpr Matrix3 kXyzFromLinear{{{0.4124564, 0.3575761, 0.1804375},
                                  {0.2126729, 0.7151522, 0.0721750},
                                  {0.0193339, 0.1191920, 0.9503041}}};
constexpr std::array<double, 3> kWhite{0.95047, 1.0, 1.08883};

std::array<double, 3> times(const Matrix3& m, const std::array<double, 3>& v)
{
    std::array<double, 3> out{};
    for (int i = 0; i < 3; ++i) out[i] = m[i][0] * v[0] + m[i][1] * v[1] + m[i][2] * v[2];
    return out;
}

// The sRGB transfer function inverted (IEC 61966-2-1).
double decode(double encoded) { return encoded <= 0.04045 ? encoded / 12.92 : std::pow((encoded + 0.055) / 1.055, 2.4); }

// CIE 15:2004's f(t) for CIELAB, with the exact constants (216/24389, 24389/27).
double labF(double t) { return t > 216.0 / 24389.0 ? std::cbrt(t) : (24389.0 / 27.0 * t + 16.0) / 116.0; }

double degrees(double radians) { return radians * 180.0 / std::numbers::pi; }
double radians(double degrees) { return degrees * std::numbers::pi / 180.0; }

}  // namespace

LinearRgb linearFromRgb(unsigned rgb)
{
    return {decode(((rgb >> 16) & 0xffu) / 255.0), decode(((rgb >> 8) & 0xffu) / 255.0), decode((rgb & 0xffu) / 255.0)};
}

LinearRgb simulate(const LinearRgb& colour, VisionDeficiency deficiency)
{
    if (deficiency == VisionDeficiency::None) return colour;
    const Matrix3& m = deficiency == VisionDeficiency::Protanopia     ? kProtanopia
                       : deficiency == VisionDeficiency::Deuteranopia ? kDeuteranopia
                                                                      : kTritanopia;
    LinearRgb seen = times(m, colour);
    for (double& c : seen) c = std::clamp(c, 0.0, 1.0);
    return seen;
}

Lab labFromLinear(const LinearRgb& colour)
{
    const std::array<double, 3> xyz = times(kXyzFromLinear, colour);
    const double fx = labF(xyz[0] / kWhite[0]), fy = labF(xyz[1] / kWhite[1]), fz = labF(xyz[2] / kWhite[2]);
    return {116.0 * fy - 16.0, 500.0 * (fx - fy), 200.0 * (fy - fz)};
}

double ciede2000(const Lab& first, const Lab& second)
{
    // Sharma et al. 2005, eqs. 2-4: a' stretched by G from the mean chroma.
    const double meanChroma = (std::hypot(first.a, first.b) + std::hypot(second.a, second.b)) / 2.0;
    const double c7 = std::pow(meanChroma, 7.0);
    const double g = 0.5 * (1.0 - std::sqrt(c7 / (c7 + std::pow(25.0, 7.0))));
    const double a1 = (1.0 + g) * first.a, a2 = (1.0 + g) * second.a;
    const double c1 = std::hypot(a1, first.b), c2 = std::hypot(a2, second.b);
    auto hue = [](double b, double a) {
        if (a == 0.0 && b == 0.0) return 0.0;
        const double h = degrees(std::atan2(b, a));
        return h < 0.0 ? h + 360.0 : h;
    };
    const double h1 = hue(first.b, a1), h2 = hue(second.b, a2);
    // Eqs. 8-10: the differences.
    const double deltaL = second.L - first.L, deltaC = c2 - c1;
    double deltaHue = 0.0;
    if (c1 * c2 != 0.0) {
        deltaHue = h2 - h1;
        if (deltaHue > 180.0) deltaHue -= 360.0;
        else if (deltaHue < -180.0) deltaHue += 360.0;
    }
    const double deltaH = 2.0 * std::sqrt(c1 * c2) * std::sin(radians(deltaHue / 2.0));
    // Eqs. 12-14: means (the mean hue across the 0/360 seam).
    const double meanL = (first.L + second.L) / 2.0, meanC = (c1 + c2) / 2.0;
    double meanH = h1 + h2;
    if (c1 * c2 != 0.0) {
        if (std::abs(h1 - h2) <= 180.0) meanH = (h1 + h2) / 2.0;
        else meanH = h1 + h2 < 360.0 ? (h1 + h2 + 360.0) / 2.0 : (h1 + h2 - 360.0) / 2.0;
    }
    // Eqs. 15-22: weights and the rotation term.
    const double t = 1.0 - 0.17 * std::cos(radians(meanH - 30.0)) + 0.24 * std::cos(radians(2.0 * meanH)) +
                     0.32 * std::cos(radians(3.0 * meanH + 6.0)) - 0.20 * std::cos(radians(4.0 * meanH - 63.0));
    const double deltaTheta = 30.0 * std::exp(-std::pow((meanH - 275.0) / 25.0, 2.0));
    const double meanC7 = std::pow(meanC, 7.0);
    const double rc = 2.0 * std::sqrt(meanC7 / (meanC7 + std::pow(25.0, 7.0)));
    const double l50 = (meanL - 50.0) * (meanL - 50.0);
    const double sl = 1.0 + 0.015 * l50 / std::sqrt(20.0 + l50);
    const double sc = 1.0 + 0.045 * meanC, sh = 1.0 + 0.015 * meanC * t;
    const double rt = -std::sin(radians(2.0 * deltaTheta)) * rc;
    const double l = deltaL / sl, c = deltaC / sc, h = deltaH / sh;
    return std::sqrt(l * l + c * c + h * h + rt * c * h);
}

Lab seenLab(unsigned rgb, VisionDeficiency deficiency) { return labFromLinear(simulate(linearFromRgb(rgb), deficiency)); }

const char* deficiencyName(VisionDeficiency deficiency)
{
    switch (deficiency) {
    case VisionDeficiency::None: return "normal vision";
    case VisionDeficiency::Protanopia: return "protanopia";
    case VisionDeficiency::Deuteranopia: return "deuteranopia";
    case VisionDeficiency::Tritanopia: return "tritanopia";
    }
    return "";
}

}  // namespace qkv::test
