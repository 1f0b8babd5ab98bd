// Tests of the cost model. Every expected number is counted by hand in the comment next to
// it (or by an independent method: a naive matrix-product loop that counts its own
// multiply-adds, 128-bit arithmetic, or evaluating the formula string), never copied from
// the implementation's output.

#include "core/cost/cost_model.hpp"

#include <cctype>
#include <limits>
#include <string>

#include <gtest/gtest.h>

namespace qkv {
namespace {

// 128-bit integers for exact reference values (a GCC/Clang extension).
__extension__ typedef __int128 Wide;

LayerShape shape(Count d_model, Count h, Count g, bool bias, HeadLayout layout = HeadLayout::Factored)
{
    return LayerShape{d_model, h, g, bias, layout};
}

const CostRow* findRow(const std::vector<CostRow>& rows, const std::string& name)
{
    for (const CostRow& row : rows) {
        if (row.name == name) {
            return &row;
        }
    }
    return nullptr;
}

// ---------------------------------------------------------------------------------------
// A tiny evaluator for the numeric side of a formula string ("2 * (8 + 4) * 3^2"), so every
// table row can be checked: the formula shown must compute the value shown.
class Arithmetic {
public:
    explicit Arithmetic(std::string text) : text_(std::move(text)) {}
    bool evaluate(Wide& out)
    {
        out = sum();
        skipSpaces();
        return ok_ && pos_ == text_.size();
    }

private:
    void skipSpaces()
    {
        while (pos_ < text_.size() && text_[pos_] == ' ') ++pos_;
    }
    bool eat(char c)
    {
        skipSpaces();
        if (pos_ < text_.size() && text_[pos_] == c) {
            ++pos_;
            return true;
        }
        return false;
    }
    Wide sum()
    {
        Wide v = product();
        while (eat('+')) v += product();
        return v;
    }
    Wide product()
    {
        Wide v = power();
        while (eat('*')) v *= power();
        return v;
    }
    Wide power()
    {
        const Wide base = atom();
        if (eat('^')) {
            const Wide exponent = atom();
            Wide v = 1;
            for (Wide i = 0; i < exponent; ++i) v *= base;
            return v;
        }
        return base;
    }
    Wide atom()
    {
        if (eat('(')) {
            const Wide v = sum();
            if (!eat(')')) ok_ = false;
            return v;
        }
        skipSpaces();
        Wide v = 0;
        const std::size_t start = pos_;
        while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) {
            v = v * 10 + (text_[pos_++] - '0');
        }
        if (pos_ == start) ok_ = false;
        return v;
    }

    std::string text_;
    std::size_t pos_ = 0;
    bool ok_ = true;
};

// Evaluates the part of `formula` after " = ".
::testing::AssertionResult formulaComputesValue(const CostRow& row)
{
    const auto eq = row.formula.find(" = ");
    if (eq == std::string::npos) {
        return ::testing::AssertionFailure() << row.name << ": no ' = ' in \"" << row.formula << "\"";
    }
    Wide value = 0;
    if (!Arithmetic(row.formula.substr(eq + 3)).evaluate(value)) {
        return ::testing::AssertionFailure() << row.name << ": cannot evaluate \"" << row.formula << "\"";
    }
    if (value != row.value) {
        return ::testing::AssertionFailure() << row.name << ": \"" << row.formula << "\" evaluates to "
                                             << static_cast<long long>(value) << " but the row says " << row.value;
    }
    return ::testing::AssertionSuccess();
}

// ---------------------------------------------------------------------------------------
// Parameters, by hand

TEST(CostModel, StandardLayerByHand)
{
    // d_model = 8, h = 2 (d_k = 4), g = h, biases:
    // W^Q = 8 * 8 = 64, W^K = 64, W^V = 64, W^O = 64, b^Q = b^K = b^V = b^O = 8.
    const LayerShape s = shape(8, 2, 2, true);
    EXPECT_EQ(headDim(s), 4);
    EXPECT_EQ(queryWeightParameters(s), 64);
    EXPECT_EQ(keyWeightParameters(s), 64);
    EXPECT_EQ(valueWeightParameters(s), 64);
    EXPECT_EQ(outputWeightParameters(s), 64);
    EXPECT_EQ(bilinearWeightParameters(s), 0);
    EXPECT_EQ(queryBiasParameters(s), 8);
    EXPECT_EQ(keyBiasParameters(s), 8);
    EXPECT_EQ(valueBiasParameters(s), 8);
    EXPECT_EQ(outputBiasParameters(s), 8);
    EXPECT_EQ(bilinearBiasParameters(s), 0);
    const ParameterBreakdown p = layerParameters(s);
    EXPECT_EQ(p.weights(), 256);
    EXPECT_EQ(p.biases(), 32);
    EXPECT_EQ(p.total(), 288);  // 4 * 64 + 4 * 8
    EXPECT_EQ(layerParameterCount(shape(8, 2, 2, false)), 256);
}

TEST(CostModel, StandardLayerIsFourDSquaredPlusFourDForEveryValidH)
{
    for (const Count d : {1, 2, 6, 8, 64, 512, 768, 1024, 4096, 12288}) {
        for (const Count h : divisorsOf(d)) {
            EXPECT_EQ(layerParameterCount(shape(d, h, h, true)), 4 * d * d + 4 * d) << d << " " << h;
            EXPECT_EQ(layerParameterCount(shape(d, h, h, false)), 4 * d * d) << d << " " << h;
        }
    }
    // d_model = 512: 4 * 262144 + 2048 = 1050624.
    EXPECT_EQ(layerParameterCount(shape(512, 8, 8, true)), 1050624);
}

TEST(CostModel, GroupedQueryByHand)
{
    // d_model = 8, h = 4 (d_k = 2), g = 2: W^Q = 8 * 8 = 64, W^K = 8 * (2 * 2) = 32,
    // W^V = 32, W^O = 64; b^Q = 8, b^K = 2 * 2 = 4, b^V = 4, b^O = 8. Total 192 + 24 = 216.
    const LayerShape s = shape(8, 4, 2, true);
    EXPECT_EQ(attentionKind(s), AttentionKind::GroupedQuery);
    const ParameterBreakdown p = layerParameters(s);
    EXPECT_EQ(p.queryWeight, 64);
    EXPECT_EQ(p.keyWeight, 32);
    EXPECT_EQ(p.valueWeight, 32);
    EXPECT_EQ(p.outputWeight, 64);
    EXPECT_EQ(p.queryBias, 8);
    EXPECT_EQ(p.keyBias, 4);
    EXPECT_EQ(p.valueBias, 4);
    EXPECT_EQ(p.outputBias, 8);
    EXPECT_EQ(p.total(), 216);
}

TEST(CostModel, MultiQueryByHand)
{
    // d_model = 8, h = 4 (d_k = 2), g = 1: W^K = W^V = 8 * 2 = 16, b^K = b^V = 2.
    // Total 64 + 16 + 16 + 64 + 8 + 2 + 2 + 8 = 180.
    const LayerShape s = shape(8, 4, 1, true);
    EXPECT_EQ(attentionKind(s), AttentionKind::MultiQuery);
    EXPECT_EQ(keyWeightParameters(s), 16);
    EXPECT_EQ(valueWeightParameters(s), 16);
    EXPECT_EQ(keyBiasParameters(s), 2);
    EXPECT_EQ(valueBiasParameters(s), 2);
    EXPECT_EQ(layerParameterCount(s), 180);
    EXPECT_EQ(attentionKind(shape(8, 4, 4, true)), AttentionKind::MultiHead);
    // d_model = 4096, h = 32, g = 8 (Llama-2-70B-like): d_k = 128,
    // W^Q = W^O = 4096^2 = 16777216, W^K = W^V = 4096 * 1024 = 4194304: 41943040 without bias.
    EXPECT_EQ(layerParameterCount(shape(4096, 32, 8, false)), 41943040);
}

TEST(CostModel, UnreducedByHand)
{
    // d_model = 8, h = 2, d_k = d_v = 8: W^Q = 8 * (2 * 8) = 128, W^K = W^V = 128,
    // W^O = (2 * 8) * 8 = 128; b^Q = b^K = b^V = 16, b^O = 8. Total 512 + 56 = 568.
    const LayerShape s = shape(8, 2, 2, true, HeadLayout::Unreduced);
    EXPECT_EQ(headDim(s), 8);
    const ParameterBreakdown p = layerParameters(s);
    EXPECT_EQ(p.queryWeight, 128);
    EXPECT_EQ(p.keyWeight, 128);
    EXPECT_EQ(p.valueWeight, 128);
    EXPECT_EQ(p.outputWeight, 128);
    EXPECT_EQ(p.queryBias, 16);
    EXPECT_EQ(p.keyBias, 16);
    EXPECT_EQ(p.valueBias, 16);
    EXPECT_EQ(p.outputBias, 8);
    EXPECT_EQ(p.total(), 568);
    // Unreduced heads need not divide d_model: h = 3, d = 8: W^Q = 8 * 24 = 192.
    const LayerShape three = shape(8, 3, 3, false, HeadLayout::Unreduced);
    EXPECT_TRUE(validateLayerShape(three).ok());
    EXPECT_EQ(queryWeightParameters(three), 192);
    EXPECT_EQ(layerParameterCount(three), 4 * 192);
    // Unreduced multi-query: d = 8, h = 2, g = 1: W^K = W^V = 8 * 8 = 64, b^K = b^V = 8.
    EXPECT_EQ(layerParameterCount(shape(8, 2, 1, true, HeadLayout::Unreduced)), 128 + 64 + 64 + 128 + 16 + 8 + 8 + 8);
}

TEST(CostModel, FullBilinearByHand)
{
    // d_model = 8, h = 4 (d_v = 2): W_1..W_4 = 4 * 8 * 8 = 256 replace W^Q, W^K; W^V = 64,
    // W^O = 64; key-side bias u_1..u_4 = 4 * 8 = 32, b^V = 8, b^O = 8. Total 384 + 48 = 432.
    const LayerShape s = shape(8, 4, 4, true, HeadLayout::FullBilinear);
    const ParameterBreakdown p = layerParameters(s);
    EXPECT_EQ(p.queryWeight, 0);
    EXPECT_EQ(p.keyWeight, 0);
    EXPECT_EQ(p.bilinearWeight, 256);
    EXPECT_EQ(p.valueWeight, 64);
    EXPECT_EQ(p.outputWeight, 64);
    EXPECT_EQ(p.queryBias, 0);
    EXPECT_EQ(p.keyBias, 0);
    EXPECT_EQ(p.bilinearBias, 32);
    EXPECT_EQ(p.valueBias, 8);
    EXPECT_EQ(p.outputBias, 8);
    EXPECT_EQ(p.total(), 432);
    EXPECT_EQ(layerParameterCount(shape(8, 4, 4, false, HeadLayout::FullBilinear)), 384);
}

// ---------------------------------------------------------------------------------------
// Rows and formula strings

TEST(CostModel, ParameterRowsNameFormulaValue)
{
    const std::vector<CostRow> rows = layerParameterRows(shape(512, 8, 8, true));
    ASSERT_EQ(rows.size(), 9u);  // 4 weights, 4 biases, total
    const char* names[] = {"W^Q", "W^K", "W^V", "W^O", "b^Q", "b^K", "b^V", "b^O", "total"};
    for (std::size_t i = 0; i < rows.size(); ++i) {
        EXPECT_EQ(rows[i].name, names[i]);
    }
    EXPECT_EQ(rows[0].formula, "d_model * d_model = 512 * 512");
    EXPECT_EQ(rows[0].value, 262144);
    EXPECT_EQ(rows[4].formula, "d_model = 512");
    EXPECT_EQ(rows[8].formula, "4 * d_model^2 + 4 * d_model = 4 * 512^2 + 4 * 512");
    EXPECT_EQ(rows[8].value, 1050624);

    const std::vector<CostRow> gqa = layerParameterRows(shape(512, 8, 2, false));
    ASSERT_EQ(gqa.size(), 5u);
    EXPECT_EQ(gqa[1].name, "W^K");
    EXPECT_EQ(gqa[1].formula, "d_model * (g * d_k) = 512 * (2 * 64)");
    EXPECT_EQ(gqa[1].value, 65536);
}

TEST(CostModel, EveryRowsFormulaComputesItsValue)
{
    const LayerShape shapes[] = {
        shape(8, 2, 2, true),  shape(8, 4, 2, true),  shape(8, 4, 1, false),
        shape(512, 8, 8, true), shape(768, 12, 4, true), shape(8, 2, 2, true, HeadLayout::Unreduced),
        shape(8, 3, 1, true, HeadLayout::Unreduced), shape(8, 4, 4, true, HeadLayout::FullBilinear),
        shape(64, 4, 2, false, HeadLayout::FullBilinear), shape(1, 1, 1, true),
    };
    for (const LayerShape& s : shapes) {
        for (const CostRow& row : layerParameterRows(s)) {
            EXPECT_TRUE(formulaComputesValue(row));
        }
        const auto table = costTable(s, 7, 5);
        ASSERT_TRUE(table.ok()) << table.error();
        for (const CostRow& row : *table) {
            if (row.name == "forward: total") {
                continue;  // a sum, checked in ForwardTotalIsTheSumOfItsRows
            }
            EXPECT_TRUE(formulaComputesValue(row));
        }
    }
}

TEST(CostModel, RowsSumToTheTotalRow)
{
    for (const LayerShape& s : {shape(12, 3, 1, true), shape(12, 6, 6, true, HeadLayout::FullBilinear),
                                shape(12, 4, 2, true, HeadLayout::Unreduced)}) {
        const std::vector<CostRow> rows = layerParameterRows(s);
        Count sum = 0;
        for (std::size_t i = 0; i + 1 < rows.size(); ++i) {
            sum += rows[i].value;
        }
        EXPECT_EQ(rows.back().name, "total");
        EXPECT_EQ(rows.back().value, sum);
    }
}

// ---------------------------------------------------------------------------------------
// Score path and bytes

TEST(CostModel, ScorePathByHand)
{
    // d_model = 512, h = 8, d_k = 64: factored per head 2 * 512 * 64 = 65536, per layer
    // 8 * 65536 = 524288 (= 2 d^2); full per head 512^2 = 262144, per layer 8 * 262144 = 2097152.
    const ScorePathComparison c = compareScorePath(512, 8, 8);
    EXPECT_EQ(c.factored.parametersPerHead, 65536);
    EXPECT_EQ(c.factored.parametersPerLayer, 524288);
    EXPECT_EQ(c.full.parametersPerHead, 262144);
    EXPECT_EQ(c.full.parametersPerLayer, 2097152);
    // float32: 4 bytes each.
    EXPECT_EQ(c.factored.bytesPerHead, 262144);
    EXPECT_EQ(c.factored.bytesPerLayer, 2097152);
    EXPECT_EQ(c.full.bytesPerHead, 1048576);
    EXPECT_EQ(c.full.bytesPerLayer, 8388608);

    // GQA d = 8, h = 4, g = 2, d_k = 2: per head 2 * 8 * 2 = 32; per layer W^Q 64 + W^K 32 = 96.
    const ScorePathComparison gqa = compareScorePath(8, 4, 2);
    EXPECT_EQ(gqa.factored.parametersPerHead, 32);
    EXPECT_EQ(gqa.factored.parametersPerLayer, 96);
    EXPECT_EQ(gqa.full.parametersPerLayer, 4 * 64);

    // Unreduced d = 8, h = 2: per head 2 * 8 * 8 = 128, per layer (2 + 2) * 64 = 256.
    const ScorePathCost unreduced = scorePathCost(shape(8, 2, 2, false, HeadLayout::Unreduced));
    EXPECT_EQ(unreduced.parametersPerHead, 128);
    EXPECT_EQ(unreduced.parametersPerLayer, 256);
}

// ---------------------------------------------------------------------------------------
// FLOPs

// Multiplies (rows x inner)(inner x cols) with a naive loop and counts 2 FLOPs per
// multiply-add: an independent count of a GEMM's FLOPs.
Count countedProductFlops(Count rows, Count inner, Count cols)
{
    Count flops = 0;
    for (Count r = 0; r < rows; ++r)
        for (Count c = 0; c < cols; ++c)
            for (Count k = 0; k < inner; ++k) flops += 2;
    return flops;
}

TEST(CostModel, ScoreFlopsBothWaysByHand)
{
    // n_q = 3, n_k = 5, d_model = 8, d_k = 4.
    // Factored: X_q W_i^Q 2*3*8*4 = 192, X_kv W_i^K 2*5*8*4 = 320, Q_i K_i^T 2*3*5*4 = 120 -> 632.
    const ScoreFlops f = scoreFlopsFactored(3, 5, 8, 4);
    EXPECT_EQ(f.queryProjection, 192);
    EXPECT_EQ(f.keyProjection, 320);
    EXPECT_EQ(f.product, 120);
    EXPECT_EQ(f.total(), 632);
    // Full: X_q W_i 2*3*8*8 = 384, (X_q W_i) X_kv^T 2*3*5*8 = 240 -> 624.
    const ScoreFlops full = scoreFlopsFullBilinear(3, 5, 8);
    EXPECT_EQ(full.queryProjection, 384);
    EXPECT_EQ(full.keyProjection, 0);
    EXPECT_EQ(full.product, 240);
    EXPECT_EQ(full.total(), 624);

    // Against a counting loop, for a few other shapes.
    for (const auto& [n_q, n_k, d, dk] : {std::tuple<Count, Count, Count, Count>{1, 1, 1, 1}, {4, 9, 12, 3}, {7, 2, 16, 16}}) {
        EXPECT_EQ(scoreFlopsFactored(n_q, n_k, d, dk).total(),
                  countedProductFlops(n_q, d, dk) + countedProductFlops(n_k, d, dk) + countedProductFlops(n_q, dk, n_k));
        EXPECT_EQ(scoreFlopsFullBilinear(n_q, n_k, d).total(),
                  countedProductFlops(n_q, d, d) + countedProductFlops(n_q, d, n_k));
    }

    // At n = 512, d_model = 768, h = 12 (d_k = 64) the factored way is cheaper:
    // 2*512*768*64 * 2 + 2*512*512*64 = 100663296 + 33554432 = 134217728 vs
    // 2*512*768^2 + 2*512*512*768 = 603979776 + 402653184 = 1006632960.
    EXPECT_EQ(scoreFlopsFactored(512, 512, 768, 64).total(), 134217728);
    EXPECT_EQ(scoreFlopsFullBilinear(512, 512, 768).total(), 1006632960);

    const std::vector<CostRow> rows = scoreFlopRows(3, 5, 8, 2);
    ASSERT_NE(findRow(rows, "score FLOPs per head, factored: total"), nullptr);
    EXPECT_EQ(findRow(rows, "score FLOPs per head, factored: total")->value, 632);
    EXPECT_EQ(findRow(rows, "score FLOPs per head, full W_i: total")->value, 624);
    for (const CostRow& row : rows) {
        EXPECT_TRUE(formulaComputesValue(row));
    }
}

TEST(CostModel, ForwardFlopsByHand)
{
    // n_q = 3, n_k = 5, d_model = 8, h = 2, d_k = d_v = 4, no biases:
    // Q 2*3*8*8 = 384, K 2*5*8*8 = 640, V 640, scores 2 * (2*3*5*4) = 240, scale 2*3*5 = 30,
    // softmax 5 * 30 = 150, A V 2 * (2*3*5*4) = 240, output 2*3*8*8 = 384. Total 2708.
    const ForwardFlops f = attentionForwardFlopBreakdown(shape(8, 2, 2, false), 3, 5);
    EXPECT_EQ(f.queryProjection, 384);
    EXPECT_EQ(f.keyProjection, 640);
    EXPECT_EQ(f.valueProjection, 640);
    EXPECT_EQ(f.scores, 240);
    EXPECT_EQ(f.scale, 30);
    EXPECT_EQ(f.softmax, 150);
    EXPECT_EQ(f.weightedValues, 240);
    EXPECT_EQ(f.outputProjection, 384);
    EXPECT_EQ(f.biases, 0);
    EXPECT_EQ(f.total(), 2708);
    EXPECT_EQ(attentionForwardFlops(3, 5, 8, 2), 2708);
    // Biases: b^Q 3*8 = 24, b^K 5*8 = 40, b^V 40, b^O 24 -> 128 more.
    EXPECT_EQ(attentionForwardFlopBreakdown(shape(8, 2, 2, true), 3, 5).total(), 2708 + 128);

    // Full W_i per head: scores 2 * 624 = 1248 replace Q, K (1024) and Q_i K_i^T (240):
    // 1248 + 640 + 30 + 150 + 240 + 384 = 2692. Biases: u_i . y for 5 keys and added to 15
    // scores per head: 2 * (2*5*8 + 15) = 190, b^V 40, b^O 24 -> 254.
    EXPECT_EQ(attentionForwardFlopBreakdown(shape(8, 2, 2, false, HeadLayout::FullBilinear), 3, 5).total(), 2692);
    EXPECT_EQ(attentionForwardFlopBreakdown(shape(8, 2, 2, true, HeadLayout::FullBilinear), 3, 5).biases, 254);

    // GQA d = 8, h = 4, g = 2, d_k = 2: K and V 2*5*8*4 = 320 each instead of 640.
    const ForwardFlops gqa = attentionForwardFlopBreakdown(shape(8, 4, 2, false), 3, 5);
    EXPECT_EQ(gqa.keyProjection, 320);
    EXPECT_EQ(gqa.valueProjection, 320);
    EXPECT_EQ(gqa.scores, 4 * 2 * 3 * 5 * 2);

    // The benchmark shape (2048, 1024, 16): 8 n d^2 + 4 n^2 d + 6 h n^2
    // = 8*2048*1048576 + 4*4194304*1024 + 96*4194304
    // = 17179869184 + 17179869184 + 402653184 = 34762391552.
    EXPECT_EQ(attentionForwardFlops(2048, 2048, 1024, 16), 34762391552);
}

TEST(CostModel, ForwardTotalIsTheSumOfItsRows)
{
    for (const LayerShape& s : {shape(8, 2, 2, true), shape(12, 6, 6, true, HeadLayout::FullBilinear),
                                shape(12, 4, 2, true, HeadLayout::Unreduced)}) {
        const std::vector<CostRow> rows = attentionForwardFlopRows(s, 9, 4);
        Count sum = 0;
        for (std::size_t i = 0; i + 1 < rows.size(); ++i) {
            sum += rows[i].value;
        }
        EXPECT_EQ(rows.back().name, "forward: total");
        EXPECT_EQ(rows.back().value, sum);
        EXPECT_EQ(rows.back().value, attentionForwardFlopBreakdown(s, 9, 4).total());
    }
}

// ---------------------------------------------------------------------------------------
// Totals over the valid h

TEST(CostModel, DivisorsOf)
{
    EXPECT_EQ(divisorsOf(12), (std::vector<Count>{1, 2, 3, 4, 6, 12}));
    EXPECT_EQ(divisorsOf(1), (std::vector<Count>{1}));
    EXPECT_EQ(divisorsOf(49), (std::vector<Count>{1, 7, 49}));
    EXPECT_TRUE(divisorsOf(0).empty());
    EXPECT_TRUE(divisorsOf(-4).empty());
    EXPECT_EQ(divisorsOf(768).size(), 18u);  // 768 = 2^8 * 3: 9 * 2 divisors
}

TEST(CostModel, TotalsOverHeadCountsByHand)
{
    const std::vector<HeadCountTotals> totals = totalsOverHeadCounts(12, true);
    ASSERT_EQ(totals.size(), 6u);
    const Count heads[] = {1, 2, 3, 4, 6, 12};
    for (std::size_t i = 0; i < totals.size(); ++i) {
        EXPECT_EQ(totals[i].heads, heads[i]);
        EXPECT_EQ(totals[i].d_k, 12 / heads[i]);
        EXPECT_EQ(totals[i].standard, 4 * 144 + 4 * 12);  // 624 for every h
        EXPECT_EQ(totals[i].scorePathFactored, 2 * 144);  // 288 for every h
        EXPECT_EQ(totals[i].scorePathFull, heads[i] * 144);
    }
    // h = 3, d_k = 4:
    const HeadCountTotals& t = totals[2];
    // multi-query: W^Q 144 + W^K 12*4 = 48 + W^V 48 + W^O 144 + b 12 + 4 + 4 + 12 = 416
    EXPECT_EQ(t.multiQuery, 416);
    // full W_i: 3 * 144 + 144 + 144 + u 3*12 + b^V 12 + b^O 12 = 720 + 60 = 780
    EXPECT_EQ(t.fullBilinear, 780);
    // unreduced: 4 matrices of 12 * 36 = 432 -> 1728; biases 36 + 36 + 36 + 12 = 120 -> 1848
    EXPECT_EQ(t.unreduced, 1848);
    // h = 1: multi-query is the standard layer.
    EXPECT_EQ(totals[0].multiQuery, totals[0].standard);

    EXPECT_TRUE(totalsOverHeadCounts(0, true).empty());
    EXPECT_TRUE(totalsOverHeadCounts(limits::maxCostDModel + 1, true).empty());
    EXPECT_EQ(totalsOverHeadCounts(512, false).size(), 10u);  // 2^9: 10 divisors
}

// ---------------------------------------------------------------------------------------
// Validation and overflow

TEST(CostModel, ValidationMessages)
{
    EXPECT_TRUE(validateLayerShape(shape(512, 8, 8, true)).ok());
    EXPECT_TRUE(validateLayerShape(shape(512, 8, 1, true)).ok());

    const Status notDivisor = validateLayerShape(shape(512, 7, 7, true));
    ASSERT_FALSE(notDivisor.ok());
    EXPECT_NE(notDivisor.error().find("h = 7 does not divide d_model = 512"), std::string::npos) << notDivisor.error();
    EXPECT_NE(notDivisor.error().find("nearest valid h is 8"), std::string::npos) << notDivisor.error();
    // 768 = 2^8 * 3: the divisors around 10 are 8 and 12; 9 is nearer 8, 10 ties -> larger (12).
    EXPECT_NE(validateLayerShape(shape(768, 9, 9, true)).error().find("nearest valid h is 8"), std::string::npos);
    EXPECT_NE(validateLayerShape(shape(768, 10, 10, true)).error().find("nearest valid h is 12"), std::string::npos);

    const Status badGroups = validateLayerShape(shape(512, 8, 3, true));
    ASSERT_FALSE(badGroups.ok());
    EXPECT_NE(badGroups.error().find("valid g: 1, 2, 4, 8"), std::string::npos) << badGroups.error();

    EXPECT_FALSE(validateLayerShape(shape(0, 1, 1, true)).ok());
    EXPECT_FALSE(validateLayerShape(shape(-8, 2, 2, true)).ok());
    EXPECT_FALSE(validateLayerShape(shape(8, 0, 0, true)).ok());
    EXPECT_FALSE(validateLayerShape(shape(8, -2, 1, true)).ok());
    EXPECT_FALSE(validateLayerShape(shape(8, 2, 0, true)).ok());
    EXPECT_FALSE(validateLayerShape(shape(8, 2, 4, true)).ok());  // g > h
    EXPECT_FALSE(validateLayerShape(shape(limits::maxCostDModel + 1, 1, 1, true)).ok());
    EXPECT_FALSE(validateLayerShape(shape(8, 3, 3, true, HeadLayout::FullBilinear)).ok());

    EXPECT_TRUE(validateTokenCounts(1, limits::maxCostTokens).ok());
    EXPECT_FALSE(validateTokenCounts(0, 4).ok());
    EXPECT_FALSE(validateTokenCounts(4, limits::maxCostTokens + 1).ok());

    const auto table = costTable(shape(512, 7, 7, true), 4, 4);
    ASSERT_FALSE(table.ok());
    EXPECT_NE(table.error().find("nearest valid h is 8"), std::string::npos);
    EXPECT_FALSE(costTable(shape(512, 8, 8, true), 0, 4).ok());
}

TEST(CostModel, InvalidShapesNeverCrash)
{
    // h = 0 or negative must not divide by zero; results are unspecified but computed.
    for (const LayerShape& s : {shape(8, 0, 0, true), shape(8, -3, 0, true), shape(0, 0, 0, true),
                                shape(8, 0, 0, true, HeadLayout::FullBilinear)}) {
        (void)layerParameterRows(s);
        (void)scorePathCost(s);
        (void)attentionForwardFlopRows(s, 3, 3);
        EXPECT_EQ(headDim(s) >= 0 || s.d_model < 0, true);
    }
    (void)scoreFlopRows(3, 3, 8, 0);
}

TEST(CostModel, LargestShapesFitExactly)
{
    // At the cost model's limits every count is exact (compared with 128-bit arithmetic).
    const Wide d = limits::maxCostDModel, h = limits::maxCostHeads, n = limits::maxCostTokens;
    const LayerShape s = shape(limits::maxCostDModel, limits::maxCostHeads, limits::maxCostHeads, true,
                               HeadLayout::Unreduced);
    ASSERT_TRUE(validateLayerShape(s).ok());
    // Unreduced: Q, K, V projections 2 n d (h d) each; scores and A V 2 h n^2 d each;
    // scale h n^2; softmax 5 h n^2; output 2 n h d d; biases n h d + 2 n h d + n d.
    const Wide expected = 3 * (2 * n * d * h * d) + 2 * (2 * h * n * n * d) + 6 * h * n * n +
                              2 * n * h * d * d + 3 * n * h * d + n * d;
    ASSERT_LT(expected, static_cast<Wide>(std::numeric_limits<Count>::max()));
    EXPECT_TRUE(expected == attentionForwardFlopBreakdown(s, limits::maxCostTokens, limits::maxCostTokens).total());
    EXPECT_EQ(layerParameterCount(s), static_cast<Count>(4 * h * d * d + 3 * h * d + d));

    // The app's largest standard layer: d = 4096, n = 4096, h = 4096 (d_k = 1).
    EXPECT_EQ(attentionForwardFlops(4096, 4096, 4096, 4096),
              8LL * 4096 * 4096 * 4096 + 4LL * 4096 * 4096 * 4096 + 6LL * 4096 * 4096 * 4096);
}

TEST(CostModel, BeyondTheLimitsSaturatesInsteadOfOverflowing)
{
    const Count huge = Count{1} << 40;
    EXPECT_EQ(layerParameterCount(shape(huge, 1, 1, true)), std::numeric_limits<Count>::max());
    EXPECT_EQ(scoreFlopsFullBilinear(huge, huge, huge).total(), std::numeric_limits<Count>::max());
}

TEST(CostModel, CostTableHasBothWays)
{
    const auto table = costTable(shape(512, 8, 8, true), 128, 128);
    ASSERT_TRUE(table.ok());
    const CostRow* thin = findRow(*table, "score path per head, W_i^Q and W_i^K");
    const CostRow* full = findRow(*table, "score path per head, full W_i");
    ASSERT_NE(thin, nullptr);
    ASSERT_NE(full, nullptr);
    EXPECT_EQ(thin->value, 65536);   // 2 * 512 * 64
    EXPECT_EQ(full->value, 262144);  // 512 * 512
    const CostRow* total = findRow(*table, "parameters: total");
    ASSERT_NE(total, nullptr);
    EXPECT_EQ(total->value, 1050624);
    // 2*128*512*64 * 2 + 2*128*128*64 = 16777216 + 2097152 = 18874368.
    const CostRow* flops = findRow(*table, "score FLOPs per head, factored (X_q W_i^Q)(X_kv W_i^K)^T");
    ASSERT_NE(flops, nullptr);
    EXPECT_EQ(flops->value, 18874368);
    ASSERT_NE(findRow(*table, "forward: total"), nullptr);
}

}  // namespace
}  // namespace qkv
