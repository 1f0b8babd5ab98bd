#pragma once
// The whole model behind the layer the document shows, run on the typed sentences: the one
// ModelOverview (core/pipeline/model_overview.hpp) the Model and Predictions tabs draw, and the
// heads switched off anywhere in the model (one set, shared by both tabs).
//
// A Result whose layer came from a checkpoint that runs whole carries the model
// (Result::wholeModel). The overview is computed off the GUI thread through one LatestTask, only
// while a view that draws it is shown (demand()): a newer sentence or a head switched off
// supersedes the run under way, and the run with heads off re-runs only the blocks from the first
// switched-off head's layer.

#include <QObject>
#include <QString>

#include <memory>
#include <set>
#include <string>
#include <vector>

#include "core/pipeline/compute.hpp"
#include "core/pipeline/model_overview.hpp"
#include "ui/background/latest_task.hpp"

namespace qkv::ui {

class WholeModelRuns : public QObject {
    Q_OBJECT
public:
    explicit WholeModelRuns(QObject* parent = nullptr);
    ~WholeModelRuns() override;

    // The document's result: its model (null when the layer's checkpoint does not run whole, or
    // the weights are not a checkpoint's) and sentences. A new model clears the switched-off heads.
    void setResult(const std::shared_ptr<const qkv::Result>& result);
    // The file the document's weights came from (Document::weightsSource), set before each
    // result: without a model, says why when it is a checkpoint whose folder lacks tokenizer files.
    void setWeightsFile(const QString& file) { weightsFile_ = file; }
    // Why the weights file's model does not run whole because its tokenizer files are missing
    // (missing_tokenizer.hpp), or empty: what the Model and Predict tabs say instead of "open a model".
    const QString& missingTokenizer() const { return missingTokenizer_; }
    // Loads the weights file's model with the tokenizer of `tokenizerFile`'s folder (a
    // tokenizer.json the user chose), off the GUI thread: the model of every result of that file
    // from then on, for the Model and Predict tabs. A failure is said in missingTokenizer().
    void chooseTokenizer(const QString& tokenizerFile);
    // The model of the current result, or null.
    const std::shared_ptr<const qkv::PretrainedModel>& model() const { return model_; }
    // The layer the document shows, in model order (-1: none).
    qkv::Index shownLayer() const { return shownLayer_; }

    // A view that draws the overview is shown: compute it when it is missing or stale.
    // `valueNorms`: that view also needs every layer's value norms.
    void demand(bool valueNorms = false);

    // The latest overview (may be of an earlier request while isBusy()), or null.
    const std::shared_ptr<const qkv::ModelOverview>& overview() const { return overview_; }
    // Why there is no overview: no model behind the layer, a sentence the tokenizer refuses, ...
    // Empty when there is one or one is being computed.
    const QString& problem() const { return problem_; }
    bool isBusy() const;

    const std::set<qkv::ModelHead>& headsOff() const { return headsOff_; }
    void setHeadOff(const qkv::ModelHead& head, bool off);
    void setHeadsOff(std::set<qkv::ModelHead> heads);
    // The switched-off heads as a session keeps them (ViewOptions::modelHeadsOff: "3.2" as
    // --ablate writes them), and back. A session is restored before its layer's model is loaded:
    // the texts are kept and applied to each model that arrives (one it cannot name is left out)
    // until the user switches a head.
    std::vector<std::string> headsOffText() const;
    void restoreHeadsOff(std::vector<std::string> heads);

signals:
    void overviewChanged();  // overview() or problem() changed
    void headsOffChanged();
    void busyChanged(bool busy);

private:
    struct Delivery {
        std::shared_ptr<const qkv::ModelOverview> overview;
        QString problem;
    };
    void start();
    // restoredHeadsOff_ as heads of model_ (those it can name).
    std::set<qkv::ModelHead> restoredHeads() const;
    void deliver(const Delivery& delivery);

    std::shared_ptr<const qkv::Result> result_;
    QString weightsFile_;
    QString missingTokenizer_;
    // The weights file's model with a chosen tokenizer (chooseTokenizer), and that file.
    std::shared_ptr<const qkv::PretrainedModel> chosenModel_;
    QString chosenFor_;
    void deliverChosen(const qkv::Expected<std::shared_ptr<const qkv::PretrainedModel>>& loaded);
    std::shared_ptr<const qkv::PretrainedModel> model_;
    qkv::Index shownLayer_ = -1;
    std::set<qkv::ModelHead> headsOff_;
    std::vector<std::string> restoredHeadsOff_;  // the session's, until the user switches a head
    std::shared_ptr<const qkv::ModelOverview> overview_;
    QString problem_;
    bool stale_ = true;
    bool valueNorms_ = false;
    // Declared last: its destructor waits for a running run, which reads nothing of this object.
    LatestTask<Delivery> runs_{[this](const Delivery& delivery) { deliver(delivery); }};
    LatestTask<qkv::Expected<std::shared_ptr<const qkv::PretrainedModel>>> loads_{
        [this](const qkv::Expected<std::shared_ptr<const qkv::PretrainedModel>>& loaded) { deliverChosen(loaded); }};
};

}  // namespace qkv::ui
