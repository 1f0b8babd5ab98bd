#pragma once
// The one document: a qkv::Session (config, the weights the seed cannot regenerate, where they
// came from, user embeddings, view options), its undo stack, its file, and the latest Result.
// Every edit goes through here as one undo step with a clear text; views only read results
// (docs/architecture.md, "Layers"). While the config is invalid, the last valid Result stays.
//
// Two kinds of state:
//   - content (config, weights, provenance, embeddings): changed by edits, each one undo step;
//   - view options (tab, head, cell, colormap, colour range, zoom): saved in the session, never
//     undo steps; changing them marks the document modified all the same.
//
// For a weights editor: read result()->unscaledWeights (the weights before the scale sliders,
// presets applied), change a copy, and hand it to editWeights() with the heads changed.

#include <QObject>
#include <QString>
#include <QStringList>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/checkpoint/checkpoint.hpp"
#include "core/config/validation.hpp"
#include "core/pipeline/compute.hpp"
#include "core/session/session.hpp"

class QUndoStack;

namespace qkv::ui {

class ComputeRunner;

// A checkpoint's layer opened as a document (Document::openCheckpointLayer).
struct LayerDocument {
    QString name;  // the document's name: the model's folder or the checkpoint's file
    std::optional<std::string> targetText;  // the sentence it opens on; else the document's stay
    QString tab;  // the view it opens on (ResultView::id); empty: the tab shown stays
};

// Which control an edit came from; consecutive edits of the same key merge into one undo step
// (typing a sentence, dragging a slider, a weights editor dragging one entry).
enum class EditKey {
    None = -1,
    SourceText = 1,
    TargetText,
    DModel,
    Heads,
    HeadDim,
    Seed,
    ScaleQuery,
    ScaleKey,
    ScaleValue,
    ScaleOutput,
    RopeBase,
    SlidingWindow,
    TokenScale,
    Weights,
    // The weights editor's painting alternates Weights and WeightsStroke between strokes, so
    // that each stroke is one undo step and two strokes never merge.
    WeightsStroke,
};

class Document : public QObject {
    Q_OBJECT
public:
    explicit Document(QObject* parent = nullptr);
    ~Document() override;

    // ---- reading ----------------------------------------------------------------------------
    const qkv::Session& session() const { return session_; }
    const qkv::Config& config() const { return session_.config; }
    qkv::UserInputs inputs() const { return session_.inputs(); }
    // The last valid result (null before the first one).
    std::shared_ptr<const qkv::Result> result() const { return result_; }
    const std::vector<qkv::ValidationIssue>& issues() const;
    bool isValid() const { return issues().empty(); }
    // The typed sentences as the last edit cut them (words; the model's tokens while its own
    // input is X): what the computation reads and the sentence fields show. Null before the
    // first validation.
    std::shared_ptr<const qkv::CutSentence> sourceSentence() const;
    std::shared_ptr<const qkv::CutSentence> targetSentence() const;
    bool isComputing() const;
    QUndoStack* undoStack() const { return undoStack_; }
    ComputeRunner* runner() const { return runner_; }
    // The loaded weights' file as the user named it, or empty while no file's weights are used.
    QString weightsSource() const;
    // What each head of `config` is, for its title ("same meaning", "edited", "from file",
    // "random"), with this document's weights provenance.
    QStringList headTitles(const qkv::Config& config) const;

    // ---- the file ---------------------------------------------------------------------------
    // Where the document was opened from or last saved to; empty for a new document or an
    // example (Save then asks where).
    const QString& filePath() const { return filePath_; }
    // The file name, the example's file name, or "Untitled".
    QString displayName() const;
    // Content edits since the last save (the undo stack's clean state), view options that
    // differ from the saved ones, or a restored session that was never saved.
    bool isModified() const;
    // The session was written to `path`: it becomes the document's file and the clean state.
    void markSaved(const QString& path);
    // The session as it was last opened or saved (what "Discard" returns to).
    const qkv::Session& savedSession() const { return saved_; }

    // ---- edits: each one undo step -----------------------------------------------------------
    // A new config, merged with the previous edit of `key`.
    void edit(const qkv::Config& config, const QString& description, EditKey key = EditKey::None);
    // Uses weights loaded from `source` (a file): d_model, g and the biases follow the file,
    // and h moves to the nearest valid head count if it no longer divides d_model. A null
    // `weights` returns to the generated weights ("Use Generated Weights").
    void setWeights(std::shared_ptr<const qkv::AttentionWeights> weights, const QString& source,
                    const QString& layer = {});
    // Uses one attention layer of a checkpoint (core/checkpoint/checkpoint.hpp): its weights,
    // and the settings its model fixes (d_model, h, g, biases, positions, the 1/sqrt(d_k) scale
    // and the mode: self, causal or cross). `positions`, the user's choice in the Open
    // Checkpoint dialog, is used where the checkpoint does not fix them (the core's one rule,
    // applyCheckpointLayerSettings); empty: the layer's own. Presets and switched-off heads are
    // cleared (a preset would overwrite the layer's heads), and the token scale returns to the
    // paper's 1 (it served the positional presets). One undo step; notice() says what changed, then
    // `notes` (what the loader left out or filled in).
    // With `modelInput` (the layer's own input, core/pipeline/layer_input.hpp) the
    // embeddings become the model's own input and the chips its subword tokens; without it,
    // model embeddings fall back to words and `modelInputNote` (why not) is said.
    void useCheckpointLayer(std::shared_ptr<const qkv::AttentionWeights> weights,
                            const qkv::CheckpointLayerSettings& settings,
                            std::optional<qkv::PositionalEncoding> positions, const QString& source,
                            const QString& layer, const QStringList& notes = {},
                            std::shared_ptr<const qkv::ModelInput> modelInput = {},
                            const QString& modelInputNote = {});
    // The same layer opened as a new document (File > Open Checkpoint, Open Model, the demo
    // model): core's sessionOnCheckpointLayer, then open() under `opening.name`. Nothing of the
    // document before stays but its sentences and how the views look.
    void openCheckpointLayer(std::shared_ptr<const qkv::AttentionWeights> weights,
                             const qkv::CheckpointLayerSettings& settings,
                             std::optional<qkv::PositionalEncoding> positions, const LayerDocument& opening,
                             const QString& source, const QString& layer, const QStringList& notes = {},
                             std::shared_ptr<const qkv::ModelInput> modelInput = {},
                             const QString& modelInputNote = {});
    // Shows attention layer `layer` (attentionLayers order) of the document's trained model: the
    // mode becomes the layer's kind; the user's weight edits, presets and switched-off heads of
    // the layer shown before are cleared (they were that layer's). One undo step. False (nothing
    // changes) without a trained model or for a layer it does not have.
    bool showTrainedLayer(qkv::Index layer);
    // Sets `preset` on its head with the settings it needs (qkv::withPreset) and reports the
    // settings it changed beyond the head (notice(), settingNotes()).
    void applyPreset(const qkv::HeadPreset& preset);
    // Back to the head's stored or generated weights.
    void removePreset(qkv::Index head);
    // The heads switched off (0-based; sorted and de-duplicated here).
    void setAblatedHeads(std::vector<qkv::Index> heads);
    // For a weights editor. `newBase` has the shape of result()->unscaledWeights (d_model x
    // d_model, W^K and W^V d_model x g d_k, the same biases) and is typically a changed copy
    // of it. Only the blocks of `editedHeads` (0-based) are taken from it: their W^Q columns,
    // the W^K and W^V columns of their key/value heads, their W^O rows and bias entries, plus
    // b^O; every other head keeps its stored (or generated) weights, so its preset stays
    // removable. The edited heads become "edited" in the provenance and lose their presets;
    // other presets stay (presets overwrite, so re-applying them changes nothing). Merges with
    // the previous editWeights() of the same `key` (EditKey::Weights while dragging).
    // Returns false, changing nothing and emitting notice(), when the shape or a head does not
    // fit the current config, or a value is not finite.
    bool editWeights(std::shared_ptr<const qkv::AttentionWeights> newBase, std::vector<qkv::Index> editedHeads,
                     const QString& description, EditKey key = EditKey::None);
    // Replaces the content (config, weights, embeddings) by a scenario's, keeping the view
    // options: one undo step named after `title`.
    void applyScenario(const qkv::Session& scenario, const QString& title);

    // ---- whole documents ---------------------------------------------------------------------
    // Opens `session` as the document (a session file, an example, a model's layer) in one undo
    // step named `description`: its content, view options, file (`filePath`, empty for an
    // example or a model) and name all change, and it is unmodified as opened. Undo returns to
    // the document before it, whole, under its own name.
    void open(const qkv::Session& session, const QString& filePath, const QString& displayName,
              const QString& description);
    // The same without an undo step: the history starts again (the last session at start).
    // Opens `session` as the document: `filePath` is its file (empty for an example or a new
    // document, which `displayName` then names); `modified` marks a restored session that was
    // never saved.
    void replace(const qkv::Session& session, const QString& filePath, const QString& displayName = {},
                 bool modified = false);
    // A new untitled document on `config` with generated weights and the current view options
    // (File > New, tests).
    void reset(const qkv::Config& config);

    // ---- a preview: content shown without being the document ---------------------------------
    // The Train tab shows its model in every view while it learns. A preview is no undo step and
    // never saved: Save and the autosave write documentSession(), the document as it was. It
    // ends with endPreview() (the document returns), keep(), an edit (made on the shown content:
    // the preview becomes the document, one undo step back to it as it was), undo, redo or a new
    // document; previewChanged(false) says so.
    //
    // Shows `content` (its view options are ignored); a later preview replaces an earlier one.
    void preview(const qkv::Session& content);
    // The document again, as it was before the preview.
    void endPreview();
    bool isPreviewing() const { return previewBase_.has_value(); }
    // Makes `content` the document in one undo step named `description`, ending a preview: undo
    // returns to the document as it was before the preview.
    void keep(const qkv::Session& content, const QString& description);
    // The document's own content (not a preview): what Save and the autosave write.
    const qkv::Session& documentSession() const { return previewBase_ ? *previewBase_ : session_; }
    // Whether documentSession() is valid (a file holds valid settings only).
    bool isDocumentValid() const { return previewBase_ ? previewBaseValid_ : isValid(); }

    // ---- view options: saved in the session, not undo steps -------------------------------------
    const qkv::ViewOptions& viewOptions() const { return session_.view; }
    void setViewOptions(const qkv::ViewOptions& view);

    // Blocks (processing events) until no computation is running or waiting; for tests,
    // benchmarks and export.
    void waitUntilIdle() const;
    // A computation is running or waiting.
    bool isBusy() const;

signals:
    void configChanged(const qkv::Config& config);
    void validationChanged(const std::vector<qkv::ValidationIssue>& issues);
    void resultChanged(std::shared_ptr<const qkv::Result> result);
    void computeFailed(const QString& message);
    void busyChanged(bool busy);
    // Content (config, weights, provenance, embeddings) changed: by an edit, undo, redo or a
    // new document.
    void contentChanged();
    // A new document replaced the view options (replace(), reset()); the window applies them.
    void viewOptionsReplaced(const qkv::ViewOptions& view);
    // Any content or view change: the autosave listens.
    void changed();
    void modifiedChanged(bool modified);
    // The file or the display name changed.
    void fileChanged();
    // One line for the status bar: what an edit did beyond what was asked (a preset's setting
    // changes) or why it was refused.
    void notice(const QString& message);
    // A preview began (true) or ended (false), by endPreview() or otherwise (see preview()).
    void previewChanged(bool previewing);

public:
    // What open() swaps: the content and view options, and the file they belong to.
    struct WholeDocument {
        qkv::Session session;  // with its view options
        qkv::Session saved;    // what Discard returns to
        QString filePath, displayName;
    };

private:
    friend class SetSessionCommand;
    friend class OpenDocumentCommand;
    WholeDocument wholeDocument() const;
    void showWholeDocument(const WholeDocument& whole);
    // Content from `content` (its view options are ignored), then validation and compute.
    void applyContent(const qkv::Session& content);
    // Shows `content` (its view options are ignored) and computes; `edited`: a change of the
    // document (the autosave hears of it), not a preview.
    void showContent(const qkv::Session& content, bool edited);
    // Forgets the preview (the document is what session_ becomes next); says so.
    void dropPreview();
    void pushContent(const qkv::Session& after, const QString& description, EditKey key = EditKey::None);
    void validateAndCompute();
    void updateModified();

    qkv::Session session_;
    // The document under a preview (session_ then holds the preview), and whether it was valid.
    std::optional<qkv::Session> previewBase_;
    bool previewBaseValid_ = true;
    qkv::Session saved_;
    QString filePath_;
    QString displayName_;
    bool modified_ = false;
    qkv::GeneratedWeightsCache weightsCache_;
    std::shared_ptr<const qkv::Result> result_;
    // The last edit, cut and validated (qkv::prepareCompute); the next one reuses its cuts.
    std::shared_ptr<const qkv::ComputeRequest> request_;
    QUndoStack* undoStack_;
    ComputeRunner* runner_;
};

}  // namespace qkv::ui
