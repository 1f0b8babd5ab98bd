#include "ui/document/session_text.hpp"

#include <QCoreApplication>
#include <QFileInfo>

#include "core/presets/head_presets.hpp"

namespace qkv::ui {
namespace {

// The translation context of this file's visible text (lupdate reads Text::tr).
struct Text {
    Q_DECLARE_TR_FUNCTIONS(qkv::ui::SessionText)
};

QString fromStd(std::string_view text) { return QString::fromUtf8(text.data(), static_cast<qsizetype>(text.size())); }

QString initTitle(qkv::WeightInit init)
{
    return init == qkv::WeightInit::Normal ? Text::tr("normal N(0, 1/d_model)") : Text::tr("Xavier uniform");
}

// Random and low-rank presets draw from the seed's weights even over stored ones.
bool presetsUseTheSeed(const qkv::Config& config)
{
    for (const qkv::HeadPreset& p : config.presets)
        if (p.kind == qkv::HeadPresetKind::Random || p.kind == qkv::HeadPresetKind::LowRank) return true;
    return false;
}

// Every sentence the mode reads is replaced by user embeddings.
// No sentence's X comes from the seed: given as files, or the model's own input.
bool embeddingsAllGiven(const qkv::Session& s)
{
    if (s.config.embeddings == qkv::EmbeddingKind::Model) return true;
    const bool source = !s.config.needsSource() || s.sourceEmbeddings;
    const bool target = !s.config.needsTarget() || s.targetEmbeddings;
    return source && target;
}

std::vector<qkv::Index> headsWithOrigin(const qkv::Session& s, qkv::HeadOrigin origin)
{
    std::vector<qkv::Index> heads;
    for (std::size_t i = 0; i < s.weightsProvenance.heads.size(); ++i)
        if (s.weightsProvenance.heads[i] == origin) heads.push_back(static_cast<qkv::Index>(i));
    return heads;
}

QString whereStored(const qkv::Session& s)
{
    if (!s.weightsProvenance.file.empty())
        return Text::tr("the weights come from %1")
            .arg(QFileInfo(QString::fromStdString(s.weightsProvenance.file)).fileName());
    return Text::tr("the weights are stored in the session (edited)");
}

// "a, b and c".
QString listInWords(QStringList items)
{
    if (items.size() <= 1) return items.join(QString());
    const QString last = items.takeLast();
    return Text::tr("%1 and %2").arg(items.join(QStringLiteral(", ")), last);
}

}  // namespace

QString headList(const std::vector<qkv::Index>& heads)
{
    QStringList numbers;
    for (const qkv::Index head : heads) numbers << QString::number(head + 1);
    return (numbers.size() <= 1 ? Text::tr("head %1") : Text::tr("heads %1")).arg(listInWords(numbers));
}

namespace {

template <class T>
QString fromTo(const T& before, const T& after)
{
    return QStringLiteral("%1 → %2").arg(before).arg(after);
}

QStringList changedSettings(const qkv::Config& b, const qkv::Config& a)
{
    QStringList changed;
    const auto name = [](std::string_view text) {
        return QString::fromUtf8(text.data(), static_cast<int>(text.size()));
    };
    if (a.mode != b.mode)
        changed << Text::tr("the mode (%1)").arg(fromTo(name(qkv::modeName(b.mode)), name(qkv::modeName(a.mode))));
    if (a.d_model != b.d_model) changed << Text::tr("d_model (%1)").arg(fromTo(b.d_model, a.d_model));
    if (a.headCount != b.headCount) changed << Text::tr("h (%1)").arg(fromTo(b.headCount, a.headCount));
    if (a.keyValueHeadCount != b.keyValueHeadCount) changed << Text::tr("g");
    if (a.seed != b.seed) changed << Text::tr("the seed (%1)").arg(fromTo(b.seed, a.seed));
    if (a.embeddings != b.embeddings)
        changed << Text::tr("the embeddings (%1)")
                       .arg(fromTo(name(qkv::embeddingsName(b.embeddings)), name(qkv::embeddingsName(a.embeddings))));
    if (a.positional != b.positional) changed << Text::tr("the positions");
    if (a.tokenEmbeddingScale != b.tokenEmbeddingScale)
        changed << Text::tr("the token scale (%1)").arg(fromTo(b.tokenEmbeddingScale, a.tokenEmbeddingScale));
    if (a.presets != b.presets) changed << Text::tr("the head presets");
    if (a.ablatedHeads != b.ablatedHeads) changed << Text::tr("the switched-off heads");
    if (a.scales != b.scales) changed << Text::tr("the Q, K, V, O scales");
    return changed;
}

}  // namespace

QString scenarioChanges(const qkv::Session& before, const qkv::Session& after)
{
    const qkv::Config &b = before.config, &a = after.config;
    QStringList sentences;
    if (a.sourceText != b.sourceText) sentences << Text::tr("source");
    if (a.targetText != b.targetText) sentences << Text::tr("target");
    QStringList parts;
    if (!sentences.isEmpty())
        parts << (sentences.size() == 1 ? Text::tr("replaced your %1 sentence").arg(sentences.front())
                                        : Text::tr("replaced your source and target sentences"));
    const QStringList settings = changedSettings(b, a);
    if (!settings.isEmpty()) parts << Text::tr("changed %1").arg(listInWords(settings));
    if (after.weights != before.weights && (after.weights || before.weights)) parts << Text::tr("replaced the weights");
    if (parts.isEmpty()) return {};
    return Text::tr("It %1.").arg(listInWords(parts));
}

QStringList headTitles(const qkv::Session& session)
{
    QStringList titles;
    for (qkv::Index head = 0; head < session.config.headCount; ++head) {
        QString title = QString::fromStdString(qkv::headOriginText(session, head));
        const qkv::HeadPreset* preset = session.config.presetFor(head);
        if (preset && preset->kind == qkv::HeadPresetKind::LowRank) title += Text::tr(", r = %1").arg(preset->rank);
        // A preset's title names its job only while the settings it reads hold.
        QStringList unmet;
        if (preset)
            for (const std::string& why : qkv::presetUnmetConditions(session.config, *preset))
                unmet << QString::fromStdString(why);
        if (!unmet.isEmpty()) title = Text::tr("not %1 now (%2)").arg(title, unmet.join(QStringLiteral("; ")));
        titles << title;
    }
    return titles;
}

QStringList weightsOriginLines(const qkv::Session& s)
{
    const qkv::Config& c = s.config;
    QStringList lines;
    if (s.model) {
        // Where a trained model came from: its task, steps and held-out accuracy, and the layer.
        const auto layers = qkv::attentionLayers(s.model->parameters.spec);
        const QString layer = s.modelLayer >= 0 && s.modelLayer < static_cast<qkv::Index>(layers.size())
                                  ? fromStd(layers[static_cast<std::size_t>(s.modelLayer)].name)
                                  : QString::number(s.modelLayer);
        lines << Text::tr("Weights %1; layer %2.").arg(fromStd(s.model->provenance()), layer);
        if (s.weights) lines << Text::tr("Heads edited since: the weights are stored in the session.");
    } else if (!s.weights) {
        lines << Text::tr("Weights generated from seed %1 (%2).").arg(c.seed).arg(initTitle(c.init));
    } else {
        const std::vector<qkv::Index> edited = headsWithOrigin(s, qkv::HeadOrigin::Edited);
        QString line;
        if (!s.weightsProvenance.file.empty()) {
            line =
                Text::tr("Weights from %1").arg(QFileInfo(QString::fromStdString(s.weightsProvenance.file)).fileName());
            if (!s.weightsProvenance.layer.empty())
                line += Text::tr(", layer %1").arg(QString::fromStdString(s.weightsProvenance.layer));
            if (!edited.empty()) line += Text::tr("; %1 edited").arg(headList(edited));
        } else if (!edited.empty()) {
            line =
                Text::tr("Weights edited: %1; the others as generated from seed %2").arg(headList(edited)).arg(c.seed);
        } else {
            line = Text::tr("Weights stored in the session");
        }
        lines << line + QLatin1Char('.');
    }
    if (!c.presets.empty()) {
        QStringList presets;
        for (const qkv::HeadPreset& p : c.presets)
            presets << Text::tr("head %1 %2").arg(p.head + 1).arg(fromStd(qkv::presetTitle(p.kind)));
        lines << Text::tr("Presets: %1.").arg(presets.join(QStringLiteral(", ")));
    }
    if (!c.ablatedHeads.empty()) lines << Text::tr("Switched off: %1.").arg(headList(c.ablatedHeads));
    qkv::Config paper = c;
    paper.tokenEmbeddingScale = 1.0f;
    paper.embeddings = qkv::EmbeddingKind::Word;
    QStringList changes;
    for (const std::string& change : qkv::presetSettingChanges(paper, c)) changes << QString::fromStdString(change);
    if (!changes.isEmpty()) lines << Text::tr("Not the paper's setting: %1.").arg(changes.join(QStringLiteral("; ")));
    if (s.sourceEmbeddings)
        lines
            << Text::tr("Source X from %1.").arg(QFileInfo(QString::fromStdString(s.sourceEmbeddingsFile)).fileName());
    if (s.targetEmbeddings)
        lines
            << Text::tr("Target X from %1.").arg(QFileInfo(QString::fromStdString(s.targetEmbeddingsFile)).fileName());
    return lines;
}

QString seedNote(const qkv::Session& s)
{
    if (s.model) return Text::tr("Not used: the weights and embeddings are the trained model's.");
    const bool weightsFromSeed = !s.weights || presetsUseTheSeed(s.config);
    const bool embeddingsFromSeed = !embeddingsAllGiven(s);
    if (weightsFromSeed && embeddingsFromSeed) return {};
    if (!weightsFromSeed && !embeddingsFromSeed)
        return Text::tr("Not used: %1 and the embeddings are given.").arg(whereStored(s));
    if (!weightsFromSeed) return Text::tr("Makes the token embeddings only: %1.").arg(whereStored(s));
    return Text::tr("Makes the weights only: the embeddings are given.");
}

QString initNote(const qkv::Session& s)
{
    if (s.model) return Text::tr("Not used: the weights are the trained model's.");
    if (!s.weights || presetsUseTheSeed(s.config)) return {};
    return Text::tr("Not used: %1.").arg(whereStored(s));
}

QString tokenScaleNote(const qkv::Config& config)
{
    if (config.tokenEmbeddingScale == 1.0f) return {};
    std::vector<qkv::Index> positional;
    for (const qkv::HeadPreset& p : config.presets)
        if (qkv::isPositionalPreset(p.kind)) positional.push_back(p.head);
    if (positional.empty()) return Text::tr("The paper uses 1.");
    return Text::tr(
               "Lowered for the positional preset of %1, so that positions can be read above the words; "
               "the paper uses 1.")
        .arg(headList(positional));
}

}  // namespace qkv::ui
