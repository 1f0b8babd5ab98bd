#include "ui/figures/figure_text.hpp"

#include <algorithm>

#include <QCoreApplication>

#include "core/common/limits.hpp"
#include "ui/document/session_text.hpp"
#include "ui/figures/number_format.hpp"

namespace qkv::ui {
namespace {

// The translation context of this file's visible text (lupdate reads Text::tr).
struct Text {
    Q_DECLARE_TR_FUNCTIONS(qkv::ui::FigureText)
};

}  // namespace

QString modeTitle(qkv::AttentionMode mode)
{
    switch (mode) {
    case qkv::AttentionMode::EncoderSelf: return Text::tr("Encoder self-attention");
    case qkv::AttentionMode::DecoderCausal: return Text::tr("Decoder masked self-attention");
    case qkv::AttentionMode::Cross: return Text::tr("Cross-attention");
    }
    return {};
}

QString querySentence(qkv::AttentionMode mode)
{
    // The rule lives in core (Config::queriesFromTarget): cross-attention and the decoder take
    // their queries from the sentence being produced (docs/architecture.md, "Numerical conventions").
    qkv::Config config;
    config.mode = mode;
    return config.queriesFromTarget() ? Text::tr("target sentence") : Text::tr("source sentence");
}

QString keySentence(qkv::AttentionMode mode)
{
    qkv::Config config;
    config.mode = mode;
    return config.keysFromTarget() ? Text::tr("target sentence") : Text::tr("source sentence");
}

QString queryAxisTitle(qkv::AttentionMode mode) { return Text::tr("queries: %1").arg(querySentence(mode)); }

QString keyAxisTitle(qkv::AttentionMode mode) { return Text::tr("keys and values: %1").arg(keySentence(mode)); }

QString shapesLine(const qkv::Result& result)
{
    const qkv::AttentionResult& a = result.attention;
    QString line = Text::tr("n_q = %1, n_k = %2, d_model = %3, h = %4, d_k = %5")
                       .arg(a.queryCount())
                       .arg(a.keyCount())
                       .arg(result.queryInput.cols())
                       .arg(a.headCount())
                       .arg(a.d_k());
    if (a.grouping.keyValueHeadCount != a.grouping.headCount)
        line += Text::tr(", g = %1 key/value heads").arg(a.grouping.keyValueHeadCount);
    return line;
}

QString shapeText(qkv::Index rows, qkv::Index columns) { return QStringLiteral("%1 × %2").arg(rows).arg(columns); }

QString headName(qkv::Index head) { return Text::tr("Head %1").arg(head + 1); }

QStringList tokenTexts(const std::vector<std::string>& labels)
{
    QStringList out;
    out.reserve(static_cast<qsizetype>(labels.size()));
    for (const std::string& label : labels) out << QString::fromStdString(label);
    return out;
}

QString tokenText(const std::vector<std::string>& labels, qkv::Index position)
{
    if (position < 0 || position >= static_cast<qkv::Index>(labels.size())) return {};
    return QString::fromStdString(labels[static_cast<std::size_t>(position)]);
}

QString tokenName(const std::vector<std::string>& labels, qkv::Index position)
{
    return tokenName(tokenText(labels, position), position);
}

QString tokenName(const QString& text, qkv::Index position)
{
    return Text::tr("«%1» (position %2)").arg(text).arg(position);
}

QString rawScoreName() { return Text::tr("raw score q·k"); }

QString scaledScoreName() { return Text::tr("scaled score q·k/√d_k"); }

QString headTitle(int head, const QStringList& titles)
{
    if (head >= 0 && head < titles.size() && !titles[head].isEmpty()) return titles[head];
    return headName(head);
}

QStringList panelHeadTitles(const QStringList& origins, const std::vector<qkv::Index>& ablated)
{
    // Every head's title says what it is, "random" included: a title that only says "Head 2"
    // would hide which heads were set by hand.
    QStringList titles;
    for (int head = 0; head < origins.size(); ++head) {
        QString title = origins[head].isEmpty() ? Text::tr("Head %1").arg(head + 1)
                                                : Text::tr("Head %1 · %2").arg(head + 1).arg(origins[head]);
        if (std::find(ablated.begin(), ablated.end(), static_cast<qkv::Index>(head)) != ablated.end())
            title += Text::tr(" · off");
        titles << title;
    }
    return titles;
}

QStringList headTitlesOf(const qkv::Session& session)
{
    return panelHeadTitles(headTitles(session), session.config.ablatedHeads);
}

QString longLayerNote(const qkv::Result& result)
{
    return Text::tr("This layer is long (n_q = %1, n_k = %2): past %3 tokens each head's map is computed in tiles "
                    "and kept pooled, never held whole, and this draws full maps. The Heads tab shows every head "
                    "pooled, one query's whole row and any region exactly; qkv-studio export --pool or --rows/--cols "
                    "writes them.")
        .arg(groupedInteger(result.attention.queryCount()), groupedInteger(result.attention.keyCount()),
             groupedInteger(qkv::limits::maxFullMapTokens));
}

}  // namespace qkv::ui
