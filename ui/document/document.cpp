#include "ui/document/document.hpp"

#include <QCoreApplication>
#include <QEventLoop>
#include <QFileInfo>
#include <QTimer>
#include <QUndoStack>

#include <algorithm>
#include <utility>

#include "core/common/limits.hpp"
#include "core/pipeline/input_validation.hpp"
#include "core/presets/head_presets.hpp"
#include "core/session/apply_weights.hpp"
#include "core/training/trained_model.hpp"
#include "ui/background/release_later.hpp"
#include "ui/document/compute_runner.hpp"
#include "ui/document/session_command.hpp"
#include "ui/document/session_text.hpp"
#include "ui/document/weights_edit.hpp"

namespace qkv::ui {
namespace {

QString fromStd(std::string_view text) { return QString::fromUtf8(text.data(), static_cast<qsizetype>(text.size())); }

}  // namespace

Document::Document(QObject* parent)
    : QObject(parent), undoStack_(new QUndoStack(this)), runner_(new ComputeRunner(this))
{
    connect(runner_, &ComputeRunner::resultReady, this, [this](std::shared_ptr<const qkv::Result> result) {
        std::shared_ptr<const qkv::Result> previous = std::exchange(result_, std::move(result));
        emit resultChanged(result_);
        releaseLater(std::move(previous));  // after the views have let go of theirs
    });
    connect(runner_, &ComputeRunner::failed, this, &Document::computeFailed);
    connect(runner_, &ComputeRunner::busyChanged, this, &Document::busyChanged);
    connect(undoStack_, &QUndoStack::cleanChanged, this, &Document::updateModified);
}

Document::~Document()
{
    // A computation still running reads weightsCache_: the runner waits for it as it goes, and
    // it must go before the cache (a child would be deleted after the members).
    delete runner_;
}

bool Document::isComputing() const { return runner_->isBusy(); }

QString Document::weightsSource() const { return QString::fromStdString(session_.weightsProvenance.file); }

QStringList Document::headTitles(const qkv::Config& config) const
{
    qkv::Session s;
    s.config = config;
    s.weights = session_.weights;
    s.weightsProvenance = session_.weightsProvenance;
    s.model = session_.model;  // a trained model's heads are "trained"
    s.modelLayer = session_.modelLayer;
    return qkv::ui::headTitles(s);
}

// ---- the file ---------------------------------------------------------------------------------

QString Document::displayName() const
{
    if (!filePath_.isEmpty()) return QFileInfo(filePath_).fileName();
    return displayName_.isEmpty() ? tr("Untitled") : displayName_;
}

bool Document::isModified() const { return modified_; }

void Document::updateModified()
{
    const bool modified = !undoStack_->isClean() || session_.view != saved_.view;
    if (modified == modified_) return;
    modified_ = modified;
    emit modifiedChanged(modified_);
}

void Document::markSaved(const QString& path)
{
    saved_ = documentSession();
    if (path != filePath_) {
        filePath_ = path;
        emit fileChanged();
    }
    undoStack_->setClean();
    updateModified();
}

// ---- edits ------------------------------------------------------------------------------------

void Document::pushContent(const qkv::Session& after, const QString& description, EditKey key)
{
    // An edit of a preview is made on what the user sees; undo goes back to the document.
    const qkv::Session before = documentSession();
    dropPreview();
    undoStack_->push(new SetSessionCommand(this, before, after, description, static_cast<int>(key)));
}

void Document::edit(const qkv::Config& config, const QString& description, EditKey key)
{
    if (config == session_.config) return;
    qkv::Session after = session_;
    after.config = config;
    pushContent(after, description, key);
}

void Document::setWeights(std::shared_ptr<const qkv::AttentionWeights> weights, const QString& source,
                          const QString& layer)
{
    qkv::Session after = session_;
    const bool loading = weights != nullptr;
    qkv::applyWeightsFile(after, std::move(weights), source.toStdString());
    after.weightsProvenance.layer = loading ? layer.toStdString() : std::string();
    pushContent(after, loading ? tr("Load Weights") : tr("Use Generated Weights"));
}

namespace {

// The layer as core's rule takes it; `positions`, the dialog's choice, stands where the
// checkpoint leaves them open.
qkv::CheckpointLayerChoice layerChoice(std::shared_ptr<const qkv::AttentionWeights> weights,
                                       const qkv::CheckpointLayerSettings& settings, const QString& source,
                                       const QString& layer, std::shared_ptr<const qkv::ModelInput> modelInput)
{
    qkv::CheckpointLayerChoice choice{
        std::move(weights), settings, source.toStdString(), layer.toStdString(), std::move(modelInput), {}, {}};
    // Positions are the only layer setting the dialog offers.
    choice.nameChoice = [](qkv::LayerSetting, std::string_view value) {
        return Document::tr("the Positions choice “%1”").arg(fromStd(value)).toStdString();
    };
    return choice;
}

// What the status line says once a layer is in: its shape, then what changed beyond it.
QString layerNotice(const qkv::Session& after, const QString& layer, const qkv::AppliedCheckpointLayer& applied,
                    const QStringList& notes, const QString& modelInputNote)
{
    QString message = Document::tr("Layer %1: %2 attention, d_model %3, h %4, g %5%6%7.")
                          .arg(layer, fromStd(qkv::modeName(after.config.mode)))
                          .arg(after.config.d_model)
                          .arg(after.config.headCount)
                          .arg(after.config.g())
                          .arg(qkv::isRotary(after.config.positional) ? Document::tr(", rotary positions") : QString(),
                               after.config.scaleScores ? QString() : Document::tr(", scores not scaled by 1/√d_k"));
    if (applied.headChangesCleared)
        message += QLatin1Char(' ') + Document::tr("Presets and switched-off heads cleared (Undo goes back).");
    if (after.modelInput)
        message += QLatin1Char(' ') + Document::tr("The layer reads the model's own input (%1); the token chips are "
                                                   "its subword tokens.")
                                          .arg(fromStd(after.modelInput->description()));
    else if (!modelInputNote.isEmpty())
        message += QLatin1Char(' ') + Document::tr("Embeddings stay %1, not the model's own input: %2.")
                                          .arg(after.config.embeddings == qkv::EmbeddingKind::Meaning
                                                   ? Document::tr("by meaning")
                                                   : Document::tr("by word"),
                                               modelInputNote);
    QStringList all = notes;
    for (const std::string& note : applied.notes) all << QString::fromStdString(note);
    for (const QString& note : all) message += QLatin1Char(' ') + note;
    return message;
}

}  // namespace

void Document::useCheckpointLayer(std::shared_ptr<const qkv::AttentionWeights> weights,
                                  const qkv::CheckpointLayerSettings& settings,
                                  std::optional<qkv::PositionalEncoding> positions, const QString& source,
                                  const QString& layer, const QStringList& notes,
                                  std::shared_ptr<const qkv::ModelInput> modelInput, const QString& modelInputNote)
{
    qkv::Session after = session_;
    qkv::CheckpointLayerChoice choice = layerChoice(std::move(weights), settings, source, layer, modelInput);
    if (positions) {
        after.config.positional = *positions;
        choice.chosen.insert(qkv::LayerSetting::Positional);
    }
    const qkv::AppliedCheckpointLayer applied = qkv::applyCheckpointLayer(after, std::move(choice));
    pushContent(after, tr("Open Checkpoint Layer %1").arg(layer));
    emit notice(layerNotice(after, layer, applied, notes, modelInputNote));
}

void Document::openCheckpointLayer(std::shared_ptr<const qkv::AttentionWeights> weights,
                                   const qkv::CheckpointLayerSettings& settings,
                                   std::optional<qkv::PositionalEncoding> positions, const LayerDocument& opening,
                                   const QString& source, const QString& layer, const QStringList& notes,
                                   std::shared_ptr<const qkv::ModelInput> modelInput, const QString& modelInputNote)
{
    qkv::AppliedCheckpointLayer applied;
    qkv::Session opened = qkv::sessionOnCheckpointLayer(
        wholeDocument().session, layerChoice(std::move(weights), settings, source, layer, modelInput),
        {positions, opening.targetText}, &applied);
    if (!opening.tab.isEmpty()) opened.view.tab = opening.tab.toStdString();
    open(opened, QString(), opening.name, tr("Open %1").arg(opening.name));
    emit notice(layerNotice(opened, layer, applied, notes, modelInputNote));
}

void Document::applyPreset(const qkv::HeadPreset& preset)
{
    const qkv::Config before = session_.config;
    qkv::Session after = session_;
    after.config = qkv::withPreset(before, preset);
    if (after.config == before) return;
    const QString what = tr("head %1 %2").arg(preset.head + 1).arg(fromStd(qkv::presetTitle(preset.kind)));
    pushContent(after, tr("Preset: %1").arg(what));
    QString message = tr("Preset: %1.").arg(what);
    QStringList changes;
    for (const std::string& change : qkv::presetSettingChanges(before, after.config))
        changes << QString::fromStdString(change);
    if (!changes.isEmpty())
        message += QLatin1Char(' ') + tr("It also set: %1 (Undo goes back).").arg(changes.join(QStringLiteral("; ")));
    emit notice(message);
}

void Document::removePreset(qkv::Index head)
{
    if (!session_.config.presetFor(head)) return;
    qkv::Session after = session_;
    std::erase_if(after.config.presets, [head](const qkv::HeadPreset& p) { return p.head == head; });
    pushContent(after, tr("Remove Preset of Head %1").arg(head + 1));
}

void Document::setAblatedHeads(std::vector<qkv::Index> heads)
{
    std::sort(heads.begin(), heads.end());
    heads.erase(std::unique(heads.begin(), heads.end()), heads.end());
    if (heads == session_.config.ablatedHeads) return;
    qkv::Session after = session_;
    after.config.ablatedHeads = heads;
    pushContent(after, heads.empty() ? tr("Switch Every Head On") : tr("Switch Off %1").arg(headList(heads)));
}

bool Document::editWeights(std::shared_ptr<const qkv::AttentionWeights> newBase, std::vector<qkv::Index> editedHeads,
                           const QString& description, EditKey key)
{
    const qkv::Config& config = session_.config;
    std::sort(editedHeads.begin(), editedHeads.end());
    editedHeads.erase(std::unique(editedHeads.begin(), editedHeads.end()), editedHeads.end());
    std::string problem = newBase ? weightsEditProblem(*newBase, editedHeads, config) : "no weights were given";
    if (problem.empty() && !isValid()) problem = "the settings are not valid";
    if (!problem.empty()) {
        emit notice(tr("Cannot edit the weights: %1.").arg(QString::fromStdString(problem)));
        return false;
    }
    const std::shared_ptr<const qkv::AttentionWeights> base =
        session_.weights ? session_.weights : weightsCache_.get(config);  // generated: the seed's
    qkv::Session after = session_;
    after.weights = std::make_shared<const qkv::AttentionWeights>(
        mergeEditedHeads(*base, *newBase, editedHeads, config.grouping()));
    after.weightsProvenance =
        editedProvenance(session_.weightsProvenance, session_.weights != nullptr, config.headCount, editedHeads);
    std::erase_if(after.config.presets, [&](const qkv::HeadPreset& p) {
        return std::find(editedHeads.begin(), editedHeads.end(), p.head) != editedHeads.end();
    });
    pushContent(after, description, key);
    return true;
}

void Document::applyScenario(const qkv::Session& scenario, const QString& title)
{
    qkv::Session after = scenario;
    after.view = session_.view;
    pushContent(after, tr("Scenario: %1").arg(title));
}

// ---- whole documents --------------------------------------------------------------------------

Document::WholeDocument Document::wholeDocument() const
{
    qkv::Session shown = documentSession();
    shown.view = session_.view;
    return {std::move(shown), saved_, filePath_, displayName_};
}

void Document::showWholeDocument(const WholeDocument& whole)
{
    dropPreview();
    const bool fileDiffers = whole.filePath != filePath_ || whole.displayName != displayName_;
    filePath_ = whole.filePath;
    displayName_ = whole.displayName;
    saved_ = whole.saved;
    session_.view = whole.session.view;
    if (fileDiffers) emit fileChanged();
    emit viewOptionsReplaced(session_.view);
    applyContent(whole.session);
    updateModified();
}

void Document::open(const qkv::Session& session, const QString& filePath, const QString& displayName,
                    const QString& description)
{
    WholeDocument before = wholeDocument();
    undoStack_->push(new OpenDocumentCommand(this, std::move(before), {session, session, filePath, displayName},
                                             description));
    undoStack_->setClean();  // as opened: unmodified until edited
    updateModified();
}

void Document::replace(const qkv::Session& session, const QString& filePath, const QString& displayName, bool modified)
{
    // Before the stack's clean state changes: updateModified() compares the views with saved_.
    saved_ = session;
    session_.view = session.view;
    undoStack_->clear();
    // A restored session that was never saved stays modified until it is (and undo cannot
    // reach a clean state).
    if (modified) undoStack_->resetClean();
    showWholeDocument({session, session, filePath, displayName});
}

void Document::reset(const qkv::Config& config)
{
    qkv::Session session;
    session.config = config;
    session.view = session_.view;  // a new document, seen the same way
    replace(session, QString());
}

void Document::setViewOptions(const qkv::ViewOptions& view)
{
    if (view == session_.view) return;
    session_.view = view;
    if (previewBase_) previewBase_->view = view;  // what Save writes under a preview
    updateModified();
    emit changed();
}

// ---- applying content -------------------------------------------------------------------------

void Document::applyContent(const qkv::Session& content)
{
    dropPreview();  // undo or redo while a preview is shown: the document's history wins
    showContent(content, true);
}

void Document::showContent(const qkv::Session& content, bool edited)
{
    const qkv::ViewOptions view = session_.view;
    session_ = content;
    session_.view = view;
    emit configChanged(session_.config);
    emit contentChanged();
    validateAndCompute();
    if (edited) emit changed();
}

// ---- a preview --------------------------------------------------------------------------------

void Document::preview(const qkv::Session& content)
{
    const bool starting = !previewBase_;
    if (starting) {
        previewBase_ = session_;
        previewBaseValid_ = isValid();
    }
    showContent(content, false);
    if (starting) emit previewChanged(true);
}

void Document::endPreview()
{
    if (!previewBase_) return;
    const qkv::Session base = std::move(*previewBase_);
    previewBase_.reset();
    showContent(base, false);
    emit previewChanged(false);
}

void Document::dropPreview()
{
    if (!previewBase_) return;
    previewBase_.reset();
    emit previewChanged(false);
}

bool Document::showTrainedLayer(qkv::Index layer)
{
    if (!session_.model) return false;
    const std::vector<qkv::AttentionLayerInfo> layers = qkv::attentionLayers(session_.model->parameters.spec);
    if (layer < 0 || layer >= static_cast<qkv::Index>(layers.size())) return false;
    if (layer == session_.modelLayer) return true;
    qkv::Session after = session_;
    after.modelLayer = layer;
    after.weights.reset();
    after.config.mode = layers[static_cast<std::size_t>(layer)].kind;
    after.config.presets.clear();
    after.config.ablatedHeads.clear();
    pushContent(after, tr("Show Trained Layer %1").arg(fromStd(layers[static_cast<std::size_t>(layer)].name)));
    return true;
}

void Document::keep(const qkv::Session& content, const QString& description)
{
    const qkv::Session before = documentSession();
    dropPreview();
    undoStack_->push(new SetSessionCommand(this, before, content, description, -1));
}

void Document::validateAndCompute()
{
    // Each sentence is cut once per edit, here; the runner's estimate and compute() read the cut.
    auto request = std::make_shared<const qkv::ComputeRequest>(
        qkv::prepareDrawnCompute(session_.config, session_.inputs(), qkv::limits::drawnPooledBlocks, request_.get()));
    request_ = request;
    emit validationChanged(request->issues);
    // A listener may have edited the document meanwhile; then its newer request has gone out.
    if (request->valid() && request_ == request) runner_->request(std::move(request), &weightsCache_);
}

const std::vector<qkv::ValidationIssue>& Document::issues() const
{
    static const std::vector<qkv::ValidationIssue> none;
    return request_ ? request_->issues : none;
}

std::shared_ptr<const qkv::CutSentence> Document::sourceSentence() const
{
    return request_ ? request_->sentences.source : nullptr;
}

std::shared_ptr<const qkv::CutSentence> Document::targetSentence() const
{
    return request_ ? request_->sentences.target : nullptr;
}

bool Document::isBusy() const { return runner_->isBusy(); }

void Document::waitUntilIdle() const
{
    // Sleeps in an event loop until the runner says it is idle. Not processEvents(flags, ms) in
    // a loop: that overload drops WaitForMoreEvents and returns at once when nothing is queued,
    // so the waiting thread spun on one of the two cores the computation runs on.
    while (runner_->isBusy()) {
        QEventLoop loop;
        connect(runner_, &ComputeRunner::busyChanged, &loop, [&loop](bool busy) {
            if (!busy) loop.quit();
        });
        QTimer::singleShot(50, &loop, &QEventLoop::quit);  // look again, whatever happens
        if (runner_->isBusy()) loop.exec();
    }
}

}  // namespace qkv::ui
