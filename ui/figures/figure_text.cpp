#include "ui/figures/figure_text.hpp"

#include <QCoreApplication>

#include "ui/document/session_text.hpp"

namespace qkv::ui {
namespace {

QString tr(const char* text) { return QCoreApplication::translate("FigureText", text); }

}  // namespace

QString modeTitle(qkv::AttentionMode mode)
{
    switch (mode) {
    case qkv::AttentionMode::EncoderSelf: return tr("Encoder self-attention");
    case qkv::AttentionMode::DecoderCausal: return tr("Decoder masked self-attention");
    case qkv::AttentionMode::Cross: return tr("Cross-attention");
    }
    return {};
}

QString querySentence(qkv::AttentionMode mode)
{
    // The rule lives in core (Config::queriesFromTarget): cross-attention and the decoder take
    // their queries from the sentence being produced (design.md section 2).
    qkv::Config config;
    config.mode = mode;
    return config.queriesFromTarget() ? tr("target sentence") : tr("source sentence");
}

QString keySentence(qkv::AttentionMode mode)
{
    qkv::Config config;
    config.mode = mode;
    return config.keysFromTarget() ? tr("target sentence") : tr("source sentence");
}

QString queryAxisTitle(qkv::AttentionMode mode) { return tr("queries: %1").arg(querySentence(mode)); }

QString keyAxisTitle(qkv::AttentionMode mode) { return tr("keys and values: %1").arg(keySentence(mode)); }

QString shapeSummary(const qkv::Result& result)
{
    const qkv::Config& c = result.config;
    return tr("n_q = %1, n_k = %2 · d_model = %3, h = %4, d_k = %5")
        .arg(result.attention.queryCount())
        .arg(result.attention.keyCount())
        .arg(c.d_model)
        .arg(c.headCount)
        .arg(c.d_k());
}

QString rawScoreName() { return tr("raw score q·k"); }

QString scaledScoreName() { return tr("scaled score q·k/√d_k"); }

QString headTitle(int head, const QStringList& titles)
{
    if (head >= 0 && head < titles.size() && !titles[head].isEmpty()) return titles[head];
    return tr("Head %1").arg(head + 1);
}

QStringList panelHeadTitles(const QStringList& origins)
{
    // Every head's title says what it is (issue 7, section 3), "random" included.
    QStringList titles;
    for (int head = 0; head < origins.size(); ++head)
        titles << (origins[head].isEmpty() ? tr("Head %1").arg(head + 1) : tr("Head %1 · %2").arg(head + 1).arg(origins[head]));
    return titles;
}

QStringList headTitlesOf(const qkv::Session& session) { return panelHeadTitles(headTitles(session)); }

}  // namespace qkv::ui
