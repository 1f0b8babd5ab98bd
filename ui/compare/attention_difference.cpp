#include "ui/compare/attention_difference.hpp"

#include <QCoreApplication>

#include <algorithm>
#include <cmath>
#include <limits>

#include "ui/figures/figure_text.hpp"
#include "ui/figures/number_format.hpp"

namespace qkv::ui {
namespace {

// The translation context of this file's visible text (lupdate reads Text::tr).
struct Text {
    Q_DECLARE_TR_FUNCTIONS(qkv::ui::AttentionDifference)
};

const qkv::MatrixF& matrixOf(const qkv::Result& r, qkv::Index head, CompareQuantity quantity)
{
    const qkv::HeadAttention& h = r.attention.heads[static_cast<std::size_t>(head)];
    return quantity == CompareQuantity::Attention ? h.attention : h.scores;
}

// a − b, NaN where either result masks the pair.
qkv::MatrixF difference(const qkv::MatrixF& a, const qkv::MatrixF& b, const qkv::AttentionMask& maskA,
                        const qkv::AttentionMask& maskB)
{
    qkv::MatrixF d = a - b;
    const bool anyMask = maskA.causal || !maskA.keyPadding.empty() || maskB.causal || !maskB.keyPadding.empty();
    if (anyMask) {
        for (qkv::Index q = 0; q < d.rows(); ++q)
            for (qkv::Index k = 0; k < d.cols(); ++k)
                if (maskA.masked(q, k) || maskB.masked(q, k)) d(q, k) = std::numeric_limits<float>::quiet_NaN();
    }
    return d;
}

void finish(AttentionDifference& d)
{
    d.range = 0;
    for (const qkv::MatrixF& m : d.differences) {
        d.largest.push_back(largestMagnitude(m));
        d.range = std::max(d.range, d.largest.back());
    }
    // A round end for the colour bar; identical results: a white picture over ±1.
    const double range = niceCeiling(d.range);
    d.colourRange = range;
    for (const qkv::MatrixF& m : d.differences)
        d.pictures.push_back(makePicture(m, kDivergingColormap, -range, range));
}

QString describe(const qkv::Result& r)
{
    const qkv::AttentionResult& a = r.attention;
    return Text::tr("%1 queries × %2 keys, %3 heads").arg(a.queryCount()).arg(a.keyCount()).arg(a.headCount());
}

}  // namespace

QString compareShapeProblem(const qkv::Result& pinned, const qkv::Result& live)
{
    const qkv::AttentionResult& p = pinned.attention;
    const qkv::AttentionResult& l = live.attention;
    if (p.queryCount() == l.queryCount() && p.keyCount() == l.keyCount() && p.headCount() == l.headCount()) return {};
    return Text::tr(
               "The shapes no longer match: the pinned result has %1, the live one %2. Go back to the pinned sentences "
               "and number of heads, or pin the live result to compare from here.")
        .arg(describe(pinned), describe(live));
}

double AttentionDifference::left(qkv::Index head, qkv::Index query, qkv::Index key) const
{
    const qkv::Result& r = mode == CompareMode::PinnedMinusLive ? *pinned : *live;
    return matrixOf(r, head, quantity)(query, key);
}

double AttentionDifference::right(qkv::Index head, qkv::Index query, qkv::Index key) const
{
    if (mode == CompareMode::PinnedMinusLive) return matrixOf(*live, head, quantity)(query, key);
    return matrixOf(*live, reference, quantity)(query, key);
}

std::shared_ptr<const AttentionDifference> AttentionDifference::pinnedMinusLive(
    std::shared_ptr<const qkv::Result> pinned, std::shared_ptr<const qkv::Result> live, CompareQuantity quantity)
{
    auto d = std::make_shared<AttentionDifference>();
    d->mode = CompareMode::PinnedMinusLive;
    d->quantity = quantity;
    d->pinned = std::move(pinned);
    d->live = std::move(live);
    if (!d->live) {
        d->problem = Text::tr("No result yet.");
        return d;
    }
    if (!d->pinned) {
        d->problem = Text::tr(
            "Nothing pinned yet. Press “Pin the live result”, then change something (a scale slider, the "
            "seed, a head preset): every head's difference appears here.");
        return d;
    }
    d->problem = compareShapeProblem(*d->pinned, *d->live);
    if (!d->ok()) return d;
    for (qkv::Index i = 0; i < d->live->attention.headCount(); ++i)
        d->differences.push_back(difference(matrixOf(*d->pinned, i, quantity), matrixOf(*d->live, i, quantity),
                                            d->pinned->attention.mask, d->live->attention.mask));
    finish(*d);
    return d;
}

std::shared_ptr<const AttentionDifference> AttentionDifference::headsMinusReference(
    std::shared_ptr<const qkv::Result> live, qkv::Index reference, CompareQuantity quantity)
{
    auto d = std::make_shared<AttentionDifference>();
    d->mode = CompareMode::HeadsMinusReference;
    d->quantity = quantity;
    d->live = std::move(live);
    if (!d->live) {
        d->problem = Text::tr("No result yet.");
        return d;
    }
    const qkv::AttentionResult& a = d->live->attention;
    if (reference < 0 || reference >= a.headCount()) {
        d->problem = Text::tr("The reference head is outside this result.");
        return d;
    }
    d->reference = reference;
    const qkv::MatrixF& base = matrixOf(*d->live, reference, quantity);
    for (qkv::Index i = 0; i < a.headCount(); ++i)
        d->differences.push_back(difference(matrixOf(*d->live, i, quantity), base, a.mask, a.mask));
    finish(*d);
    return d;
}

QString differenceLegend(const AttentionDifference& d)
{
    const QString quantity =
        d.quantity == CompareQuantity::Attention ? Text::tr("attention weight") : Text::tr("scaled score q·k/√d_k");
    if (d.mode == CompareMode::PinnedMinusLive) return Text::tr("difference in %1: pinned − live").arg(quantity);
    return Text::tr("difference in %1: head − %2").arg(quantity, headName(d.reference));
}

}  // namespace qkv::ui
