#include "ui/wholemodel/whole_model_runs.hpp"

#include <new>
#include <utility>

#include "ui/wholemodel/missing_tokenizer.hpp"

namespace qkv::ui {

WholeModelRuns::WholeModelRuns(QObject* parent) : QObject(parent)
{
    runs_.setBusyCallback([this](bool) { emit busyChanged(isBusy()); });
    loads_.setBusyCallback([this](bool) { emit busyChanged(isBusy()); });
}

WholeModelRuns::~WholeModelRuns() = default;

bool WholeModelRuns::isBusy() const { return runs_.isBusy() || loads_.isBusy(); }

void WholeModelRuns::setResult(const std::shared_ptr<const qkv::Result>& result)
{
    std::shared_ptr<const qkv::PretrainedModel> model = result ? result->wholeModel : nullptr;
    // A layer of the file whose model was given a tokenizer: that model runs whole.
    if (!model && result && chosenModel_ && weightsFile_ == chosenFor_) model = chosenModel_;
    const bool sameSentences = result && result_ && result->config.sourceText == result_->config.sourceText &&
                               result->config.targetText == result_->config.targetText;
    result_ = result;
    shownLayer_ = model && model == result->wholeModel ? result->wholeModelLayer : -1;
    missingTokenizer_ = model || !result ? QString() : missingTokenizerText(weightsFile_);
    if (model == model_ && sameSentences) return;  // another view setting: the model's run is the same
    if (model != model_) {
        model_ = std::move(model);
        overview_.reset();
        std::set<qkv::ModelHead> heads = restoredHeads();
        if (heads != headsOff_) {
            headsOff_ = std::move(heads);
            emit headsOffChanged();
        }
    }
    stale_ = true;
    runs_.cancel();
    problem_ = model_ ? QString()
               : !missingTokenizer_.isEmpty()
                   ? missingTokenizer_
                   : tr("The layer shown is not part of a model that runs whole here.");
    if (!model_) {
        overview_.reset();
        emit overviewChanged();
    }
}

void WholeModelRuns::chooseTokenizer(const QString& tokenizerFile)
{
    if (weightsFile_.isEmpty()) return;
    loads_.request([weights = weightsFile_.toStdString(), tokenizer = tokenizerFile.toStdString()] {
        try {
            return loadModelWithTokenizer(weights, tokenizer);
        } catch (const std::bad_alloc&) {
            return qkv::Expected<std::shared_ptr<const qkv::PretrainedModel>>(
                qkv::Error{"Not enough memory to load the whole model."});
        }
    });
}

void WholeModelRuns::deliverChosen(const qkv::Expected<std::shared_ptr<const qkv::PretrainedModel>>& loaded)
{
    if (!loaded) {
        missingTokenizer_ = tr("The tokenizer chosen cannot be used: %1").arg(QString::fromStdString(loaded.error())) +
                            QStringLiteral("\n\n") + missingTokenizerText(weightsFile_);
        problem_ = missingTokenizer_;
        emit overviewChanged();
        return;
    }
    chosenModel_ = *loaded;
    chosenFor_ = weightsFile_;
    setResult(result_);
    emit overviewChanged();
    if (model_) start();
}

void WholeModelRuns::demand(bool valueNorms)
{
    if (valueNorms && !valueNorms_) {
        valueNorms_ = true;
        if (overview_ && overview_->valueNorms.empty()) stale_ = true;
    }
    if (stale_ && model_) start();
}

std::vector<std::string> WholeModelRuns::headsOffText() const
{
    std::vector<std::string> texts;
    if (!model_) return restoredHeadsOff_;
    for (const qkv::ModelHead& head : headsOff_) texts.push_back(qkv::modelHeadText(*model_, head));
    return texts;
}

std::set<qkv::ModelHead> WholeModelRuns::restoredHeads() const
{
    std::set<qkv::ModelHead> heads;
    if (!model_) return heads;
    for (const std::string& text : restoredHeadsOff_)
        if (const qkv::Expected<qkv::ModelHead> head = qkv::parseModelHead(*model_, text)) heads.insert(*head);
    return heads;
}

void WholeModelRuns::restoreHeadsOff(std::vector<std::string> heads)
{
    restoredHeadsOff_ = std::move(heads);
    if (!model_) return;
    std::set<qkv::ModelHead> parsed = restoredHeads();
    if (parsed == headsOff_) return;
    headsOff_ = std::move(parsed);
    emit headsOffChanged();
    start();  // superseded by the next result's run if the document is changing too
}

void WholeModelRuns::setHeadOff(const qkv::ModelHead& head, bool off)
{
    std::set<qkv::ModelHead> heads = headsOff_;
    if (off) heads.insert(head);
    else heads.erase(head);
    setHeadsOff(std::move(heads));
}

void WholeModelRuns::setHeadsOff(std::set<qkv::ModelHead> heads)
{
    restoredHeadsOff_.clear();  // the user's choice from now on
    if (heads == headsOff_) return;
    headsOff_ = std::move(heads);
    emit headsOffChanged();
    stale_ = true;
    if (model_) start();
}

void WholeModelRuns::start()
{
    stale_ = false;
    qkv::ModelOverviewRequest request;
    request.source = result_->config.sourceText;
    request.target = result_->config.targetText;
    request.ablatedHeads = headsOff_;
    request.valueNorms = valueNorms_;
    // Only an overview of this model: its runs are reused where the tokens are the same.
    if (overview_ && overview_->model == model_) request.previous = overview_;
    runs_.request([model = model_, request = std::move(request)] {
        Delivery delivery;
        try {
            qkv::Expected<qkv::ModelOverview> overview = qkv::computeModelOverview(model, request);
            if (overview) delivery.overview = std::make_shared<const qkv::ModelOverview>(std::move(*overview));
            else delivery.problem = QString::fromStdString(overview.error());
        } catch (const std::bad_alloc&) {
            delivery.problem = tr("Not enough memory to run the whole model on these sentences: shorten them.");
        }
        return delivery;
    });
}

void WholeModelRuns::deliver(const Delivery& delivery)
{
    // A failed run leaves no overview: the views say why instead of showing numbers of other sentences.
    overview_ = delivery.overview;
    problem_ = delivery.problem;
    emit overviewChanged();
}

}  // namespace qkv::ui
