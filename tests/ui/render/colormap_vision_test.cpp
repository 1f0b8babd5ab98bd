// Every colormap read through simulated protanopia, deuteranopia and tritanopia (Machado et al.
// 2009, tests/ui/render/colour_vision.hpp): 16 evenly spaced levels, as a colour bar shows them.
//  - neighbouring levels differ by at least kNeighbourDifference CIEDE2000 units for every viewer
//    (about 1 is a just-noticeable difference side by side; 1.5 leaves a margin; the grey map's
//    lightest steps, 1.6, are the tightest of the maps the app offers);
//  - sequential maps are monotonic in CIELAB L* (darker to lighter, or the reverse);
//  - diverging maps get lighter towards the centre from both ends, and a value and its negative
//    (t and 1 - t) differ by at least kMirrorDifference: the sign never rests on red versus green.
// A made-up red-green ramp passes for normal vision and must fail for protanopes and
// deuteranopes, so the check can fail.

#include <gtest/gtest.h>

#include <functional>
#include <vector>

#include "ui/render/colormap.hpp"
#include "ui/render/colour_vision.hpp"

using qkv::test::Lab;
using qkv::test::VisionDeficiency;
using qkv::ui::Colormap;
using qkv::ui::ColormapName;

namespace {

constexpr int kLevels = 16;
constexpr double kNeighbourDifference = 1.5;  // CIEDE2000
constexpr double kMirrorDifference = 10.0;    // CIEDE2000, between t and 1 - t of a diverging map

constexpr VisionDeficiency kViewers[] = {VisionDeficiency::None, VisionDeficiency::Protanopia,
                                         VisionDeficiency::Deuteranopia, VisionDeficiency::Tritanopia};

using Ramp = std::function<unsigned(double)>;  // t in [0, 1] to 0xRRGGBB

std::vector<Lab> seenLevels(const Ramp& ramp, VisionDeficiency viewer)
{
    std::vector<Lab> levels;
    for (int i = 0; i < kLevels; ++i) levels.push_back(qkv::test::seenLab(ramp(i / double(kLevels - 1)), viewer));
    return levels;
}

double smallestNeighbourDifference(const std::vector<Lab>& levels)
{
    double smallest = 1e9;
    for (std::size_t i = 0; i + 1 < levels.size(); ++i)
        smallest = std::min(smallest, qkv::test::ciede2000(levels[i], levels[i + 1]));
    return smallest;
}

// +1 rising, -1 falling, 0 neither, over levels [first, last].
int lightnessDirection(const std::vector<Lab>& levels, std::size_t first, std::size_t last)
{
    bool rising = true, falling = true;
    for (std::size_t i = first; i < last; ++i) {
        rising = rising && levels[i + 1].L > levels[i].L;
        falling = falling && levels[i + 1].L < levels[i].L;
    }
    return rising ? 1 : falling ? -1 : 0;
}

Ramp colormapRamp(ColormapName name)
{
    return [&map = Colormap::get(name)](double t) { return map.rgb(t) & 0xffffffu; };
}

// Encoded sRGB (220, 80, 60) to (60, 150, 60), interpolated per channel: red to green at nearly
// one lightness (L* 53 to 55), the ramp a red-green heatmap would be.
unsigned redGreen(double t)
{
    auto channel = [t](double from, double to) { return unsigned(std::lround(from + (to - from) * t)); };
    return channel(220, 60) << 16 | channel(80, 150) << 8 | channel(60, 60);
}

}  // namespace

// The metric first: Sharma et al. 2005's supplementary test pairs 1, 7, 12, 17 and 25.
TEST(ColourVision, Ciede2000MatchesSharmasTestData)
{
    const struct {
        Lab first, second;
        double expected;
    } pairs[] = {{{50.0, 2.6772, -79.7751}, {50.0, 0.0, -82.7485}, 2.0425},
                 {{50.0, 0.0, 0.0}, {50.0, -1.0, 2.0}, 2.3669},
                 {{50.0, 2.5, 0.0}, {50.0, 0.0, -2.5}, 4.3065},
                 {{50.0, 2.5, 0.0}, {73.0, 25.0, -18.0}, 27.1492},
                 {{60.2574, -34.0099, 36.2677}, {60.4626, -34.1751, 39.4387}, 1.2644}};
    for (const auto& p : pairs) {
        EXPECT_NEAR(qkv::test::ciede2000(p.first, p.second), p.expected, 1e-4);
        EXPECT_NEAR(qkv::test::ciede2000(p.second, p.first), p.expected, 1e-4);
    }
}

// Sanity of the simulation: greys stay grey for every viewer, and pure red and green, far apart
// for normal vision, come close for a deuteranope.
TEST(ColourVision, SimulationKeepsGreysAndMergesRedAndGreen)
{
    for (VisionDeficiency viewer : kViewers) {
        const Lab grey = qkv::test::seenLab(0x777777, viewer);
        EXPECT_NEAR(grey.a, 0.0, 1.0) << qkv::test::deficiencyName(viewer);
        EXPECT_NEAR(grey.b, 0.0, 1.0) << qkv::test::deficiencyName(viewer);
    }
    const unsigned red = 0xb4463c, green = 0x5a8c3c;
    const double normal = qkv::test::ciede2000(qkv::test::seenLab(red, VisionDeficiency::None),
                                               qkv::test::seenLab(green, VisionDeficiency::None));
    const double deuteranope = qkv::test::ciede2000(qkv::test::seenLab(red, VisionDeficiency::Deuteranopia),
                                                    qkv::test::seenLab(green, VisionDeficiency::Deuteranopia));
    EXPECT_GT(normal, 30.0);
    EXPECT_LT(deuteranope, normal / 3.0);
}

TEST(ColormapVision, NeighbouringLevelsStayDistinguishableForEveryViewer)
{
    for (ColormapName name : Colormap::all()) {
        for (VisionDeficiency viewer : kViewers) {
            const double smallest = smallestNeighbourDifference(seenLevels(colormapRamp(name), viewer));
            EXPECT_GE(smallest, kNeighbourDifference)
                << Colormap::get(name).id().toStdString() << " with " << qkv::test::deficiencyName(viewer);
        }
    }
}

TEST(ColormapVision, SequentialMapsAreMonotonicInLightnessForEveryViewer)
{
    for (ColormapName name : Colormap::all()) {
        if (Colormap::get(name).isDiverging()) continue;
        for (VisionDeficiency viewer : kViewers) {
            const std::vector<Lab> levels = seenLevels(colormapRamp(name), viewer);
            EXPECT_NE(lightnessDirection(levels, 0, kLevels - 1), 0)
                << Colormap::get(name).id().toStdString() << " with " << qkv::test::deficiencyName(viewer);
        }
    }
}

TEST(ColormapVision, DivergingMapsGetLighterTowardsTheCentreAndKeepTheSign)
{
    int diverging = 0;
    for (ColormapName name : Colormap::all()) {
        if (!Colormap::get(name).isDiverging()) continue;
        ++diverging;
        for (VisionDeficiency viewer : kViewers) {
            const std::string what = Colormap::get(name).id().toStdString() + " with " + qkv::test::deficiencyName(viewer);
            const std::vector<Lab> levels = seenLevels(colormapRamp(name), viewer);
            EXPECT_EQ(lightnessDirection(levels, 0, kLevels / 2 - 1), 1) << what << ": negative half";
            EXPECT_EQ(lightnessDirection(levels, kLevels / 2, kLevels - 1), -1) << what << ": positive half";
            // A value and its negative: equally light by design, so only hue tells them apart
            // (the few levels nearest the centre are nearly neutral by design and left out).
            for (int i = 0; i < kLevels / 2 - 2; ++i)
                EXPECT_GE(qkv::test::ciede2000(levels[i], levels[kLevels - 1 - i]), kMirrorDifference)
                    << what << ": level " << i << " against its mirror";
        }
    }
    EXPECT_EQ(diverging, 2) << "blue-orange and red-blue";
}

// The negative check: a red-green ramp is fine for normal vision (and for tritanopes) and its
// neighbours merge for protanopes and deuteranopes, so the test above can fail.
TEST(ColormapVision, ARedGreenRampFailsForRedGreenDeficiencies)
{
    EXPECT_GE(smallestNeighbourDifference(seenLevels(redGreen, VisionDeficiency::None)), kNeighbourDifference);
    EXPECT_GE(smallestNeighbourDifference(seenLevels(redGreen, VisionDeficiency::Tritanopia)), kNeighbourDifference);
    EXPECT_LT(smallestNeighbourDifference(seenLevels(redGreen, VisionDeficiency::Protanopia)), kNeighbourDifference);
    EXPECT_LT(smallestNeighbourDifference(seenLevels(redGreen, VisionDeficiency::Deuteranopia)), kNeighbourDifference);
}

// The same for a diverging use: red for positive and green for negative (the ramp's ends,
// equally light) lose the sign for a deuteranope.
TEST(ColormapVision, RedAgainstGreenLosesTheSignForADeuteranope)
{
    auto difference = [](VisionDeficiency viewer) {
        return qkv::test::ciede2000(qkv::test::seenLab(redGreen(0.0), viewer), qkv::test::seenLab(redGreen(1.0), viewer));
    };
    EXPECT_GE(difference(VisionDeficiency::None), kMirrorDifference);
    EXPECT_LT(difference(VisionDeficiency::Deuteranopia), kMirrorDifference);
}
