#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "ui/heads/score_kind.hpp"
#include "ui/render/colormap.hpp"

using qkv::ui::Colormap;
using qkv::ui::ColormapName;

TEST(Colormap, ViridisEndsMatchThePublishedTable)
{
    const Colormap& viridis = Colormap::get(ColormapName::Viridis);
    EXPECT_EQ(viridis.map(0.0).name(), QStringLiteral("#440154"));
    EXPECT_EQ(viridis.map(1.0).name(), QStringLiteral("#fde725"));
    EXPECT_FALSE(viridis.isDiverging());
}

TEST(Colormap, ClampsOutOfRangeAndMapsNanToNeutral)
{
    const Colormap& magma = Colormap::get(ColormapName::Magma);
    EXPECT_EQ(magma.map(-3.0), magma.map(0.0));
    EXPECT_EQ(magma.map(7.0), magma.map(1.0));
    EXPECT_EQ(magma.map(std::nan("")), Colormap::neutralColor());
}

// The vectorised colouring of whole rows (what heatmap images use) gives rgb() of each normalised
// value: out of range clamped, NaN and +-infinity neutral, an empty range the middle colour. More
// values than one internal block, and a count that is not a multiple of any vector width.
TEST(Colormap, ColouringValuesGivesTheColourOfEachNormalisedValue)
{
    std::mt19937 random(7);
    std::uniform_real_distribution<float> around(-1.5f, 2.5f);
    std::vector<float> values(2053);
    for (float& v : values) v = around(random);
    values[3] = std::numeric_limits<float>::quiet_NaN();
    values[600] = std::numeric_limits<float>::infinity();
    values[1100] = -std::numeric_limits<float>::infinity();
    values[2052] = std::numeric_limits<float>::max();
    values[7] = 0.0f;
    values[8] = 1.0f;
    for (ColormapName name : {ColormapName::Viridis, ColormapName::BlueOrange}) {
        const Colormap& map = Colormap::get(name);
        for (const auto& [low, high] : {std::pair{0.0, 1.0}, std::pair{-0.75, 0.25}, std::pair{0.5, 0.5}}) {
            std::vector<unsigned> colours(values.size());
            map.rgbOfValues(values.data(), values.size(), low, high, colours.data());
            for (std::size_t i = 0; i < values.size(); ++i) {
                const double v = values[i];
                const double t = !std::isfinite(v) ? std::nan("") : high > low ? (v - low) / (high - low) : 0.5;
                ASSERT_EQ(colours[i], map.rgb(t)) << "value " << v << " over [" << low << ", " << high << "]";
            }
        }
    }
    EXPECT_EQ(Colormap::get(ColormapName::Viridis).rgb(std::nan("")), Colormap::neutralColor().rgba());
}

TEST(Colormap, SequentialMapsGetBrighterMonotonically)
{
    for (ColormapName name : {ColormapName::Viridis, ColormapName::Magma, ColormapName::Cividis}) {
        const Colormap& map = Colormap::get(name);
        double previous = -1;
        for (int i = 0; i <= 16; ++i) {
            const QColor c = map.map(i / 16.0);
            // Relative luminance (Rec. 709): perceptually uniform maps rise steadily.
            const double luminance = 0.2126 * c.redF() + 0.7152 * c.greenF() + 0.0722 * c.blueF();
            EXPECT_GT(luminance, previous) << map.displayName().toStdString() << " at " << i;
            previous = luminance;
        }
    }
}

TEST(Colormap, RedBlueIsDivergingWithANeutralCentre)
{
    const Colormap& map = Colormap::get(ColormapName::RedBlue);
    EXPECT_TRUE(map.isDiverging());
    const QColor centre = map.map(0.5);
    EXPECT_GT(centre.lightnessF(), 0.9);
    EXPECT_GT(map.map(0.0).blue(), map.map(0.0).red());  // negative: blue
    EXPECT_GT(map.map(1.0).red(), map.map(1.0).blue());  // positive: red
}

TEST(Colormap, BlueOrangeIsDivergingWithANeutralCentre)
{
    const Colormap& map = Colormap::get(ColormapName::BlueOrange);
    EXPECT_TRUE(map.isDiverging());
    const QColor centre = map.map(0.5);
    EXPECT_GT(centre.lightnessF(), 0.9);
    EXPECT_LT(centre.hsvSaturationF(), 0.1) << "the centre is neutral: " << centre.name().toStdString();
    EXPECT_GT(map.map(0.1).blue(), map.map(0.1).red());  // negative: blue
    EXPECT_GT(map.map(0.9).red(), map.map(0.9).blue());  // positive: orange (red over green over blue)
    EXPECT_GT(map.map(0.9).green(), map.map(0.9).blue());
}

// Every signed view starts on the map readable with red-green and blue-yellow deficiencies.
TEST(Colormap, TheDefaultDivergingMapIsBlueOrange)
{
    EXPECT_EQ(qkv::ui::kDivergingColormap, ColormapName::BlueOrange);
    EXPECT_TRUE(Colormap::get(qkv::ui::kDivergingColormap).isDiverging());
}

// Sessions saved before blue-orange existed name "redblue": it still opens as red-blue.
TEST(Colormap, RedBlueStillParsesFromSessions)
{
    ColormapName parsed = ColormapName::Viridis;
    ASSERT_TRUE(qkv::ui::colormapFromId(QStringLiteral("redblue"), parsed));
    EXPECT_EQ(parsed, ColormapName::RedBlue);
    ASSERT_TRUE(qkv::ui::colormapFromId(QStringLiteral("blueorange"), parsed));
    EXPECT_EQ(parsed, ColormapName::BlueOrange);
}

TEST(Colormap, IdsRoundTrip)
{
    for (ColormapName name : Colormap::all()) {
        ColormapName parsed = ColormapName::Viridis;
        ASSERT_TRUE(qkv::ui::colormapFromId(Colormap::get(name).id(), parsed));
        EXPECT_EQ(parsed, name);
        EXPECT_FALSE(Colormap::get(name).displayName().isEmpty());
    }
    ColormapName unused{};
    EXPECT_FALSE(qkv::ui::colormapFromId(QStringLiteral("jet"), unused));
}

// The spellings sessions and `qkv-studio figure` use are a contract: one table each gives them.
TEST(Colormap, SpellingsAreTheContract)
{
    QStringList ids;
    for (ColormapName name : Colormap::all()) ids << Colormap::get(name).id();
    EXPECT_EQ(ids, (QStringList{"viridis", "magma", "cividis", "greys", "blueorange", "redblue"}));
    EXPECT_EQ(qkv::allowedNames(qkv::ui::kColormapNames), "viridis, magma, cividis, greys, blueorange, redblue");
}

TEST(ScoreKind, SpellingsAndStartingColormapsComeFromOneTable)
{
    using qkv::ui::ScoreKind;
    const struct {
        ScoreKind kind;
        const char* id;
        ColormapName colormap;
    } expected[] = {{ScoreKind::Attention, "attention", ColormapName::Viridis},
                    {ScoreKind::ScaledScores, "scores", ColormapName::BlueOrange},
                    {ScoreKind::MaskedScores, "masked-scores", ColormapName::BlueOrange},
                    {ScoreKind::ValueWeighted, "value-weighted", ColormapName::Magma}};
    for (const auto& e : expected) {
        EXPECT_EQ(qkv::ui::scoreKindId(e.kind), QString::fromLatin1(e.id));
        ScoreKind parsed = ScoreKind::Attention;
        ASSERT_TRUE(qkv::ui::scoreKindFromId(QString::fromLatin1(e.id), parsed));
        EXPECT_EQ(parsed, e.kind);
        EXPECT_EQ(qkv::ui::defaultColormap(e.kind), e.colormap);
    }
    ScoreKind unused{};
    EXPECT_FALSE(qkv::ui::scoreKindFromId(QStringLiteral("weights"), unused));
    EXPECT_EQ(qkv::allowedNames(qkv::ui::kScoreKinds), "attention, scores, masked-scores, value-weighted");
}
