#pragma once
// The Predict tab's Generate panel: a causal language model continues its prompt (the document's
// target sentence) one token at a time (core's generateTokens, generation.hpp), greedily at
// temperature 0, else sampled with the seed, with the heads switched off in WholeModelRuns off.
//
// The generation runs off the GUI thread through a LatestTask (generation_steps.hpp). Each token
// is handed to the GUI thread as soon as it is chosen (a queued call) and appears at once: its row in the table
// (position, the token as the chips show it, its probability, the top 5 there) and, in every head,
// the attention of the position that chose it (generation_attention.hpp). Stop ends the
// generation after the token under way; another prompt or model stops it and clears what it made,
// a head switched off or on stops it. "Keep as prompt" offers the prompt followed by the generated
// tokens' text (SubwordTokenizer::decodePieces) as the new target sentence (keepAsPrompt).
// A model that is not a causal language model gets, in place, core's reason why.

#include <QStringList>
#include <QWidget>

#include <atomic>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "core/pipeline/generation.hpp"
#include "ui/background/latest_task.hpp"
#include "ui/predict/generation_steps.hpp"

class QDoubleSpinBox;
class QLabel;
class QPushButton;
class QSpinBox;
class QSplitter;
class QTableWidget;

namespace qkv::ui {

class GenerationAttention;
class WholeModelRuns;

class GenerationPanel : public QWidget {
    Q_OBJECT
public:
    explicit GenerationPanel(WholeModelRuns* runs, QWidget* parent = nullptr);
    ~GenerationPanel() override;

    // The prompt to continue. Another model or target text stops a generation under way and
    // clears what was generated; the same text with a newer overview only keeps it for reuse.
    void setPrompt(GenerationPrompt prompt);
    // Why the model cannot generate (core's checkGeneration), "" when it can or there is none.
    QString notApplicable() const;

    // Starts generating (tokens and temperature from the boxes); stop() ends it after the token under way.
    void generate();
    void stop();
    bool isGenerating() const { return mailbox_ != nullptr; }

    // The tokens generated so far, in order.
    const std::vector<qkv::GeneratedToken>& generated() const { return generated_; }
    // The prompt the tokens continue, followed by their text: what Keep as prompt offers.
    QString promptWithGenerated() const;
    // The generated tokens' text (decodePieces), and whether it is whole UTF-8 characters: byte
    // tokens may leave part of one, which a typed sentence cannot hold (it becomes U+FFFD).
    std::string generatedBytes() const;
    bool generatedWholeCharacters() const;

    QSpinBox* tokensBox() const { return tokens_; }
    QDoubleSpinBox* temperatureBox() const { return temperature_; }
    QSpinBox* seedBox() const { return seed_; }
    QPushButton* generateButton() const { return generate_; }
    QPushButton* keepButton() const { return keep_; }
    QLabel* statusLabel() const { return status_; }
    QLabel* reasonLabel() const { return reason_; }
    QTableWidget* table() const { return table_; }
    GenerationAttention* attention() const { return attention_; }

signals:
    // Tokens were added to the table and the attention: `count` generated so far.
    void tokenShown(int count);
    // A generation ended: finished, stopped or refused (statusLabel() says which).
    void generationEnded();
    // Keep as prompt: the new target sentence.
    void keepAsPrompt(const QString& text);

protected:
    void resizeEvent(QResizeEvent* event) override;

private:
    // Between the worker and the GUI thread: what was generated and not shown yet, and Stop.
    struct Mailbox {
        std::mutex mutex;
        bool posted = false;                // a drain is queued on the GUI thread
        std::optional<QStringList> prompt;  // the prompt's chip texts, once cut
        std::vector<GeneratedStep> steps;
        std::atomic<bool> stop{false};
    };
    void post(const std::shared_ptr<Mailbox>& mailbox);
    void drain();
    void showStep(GeneratedStep step);
    void deliver(const GenerationEnd& outcome);
    void cancel();
    void clearGenerated();
    void updateControls();
    QString finishedText() const;

    WholeModelRuns* runs_;
    GenerationPrompt prompt_;
    // The generation shown: its model, prompt text, tokens asked for, settings and heads off.
    std::shared_ptr<const qkv::PretrainedModel> model_;
    std::string promptText_;
    qkv::Index promptLength_ = 0;
    qkv::GenerationOptions options_;
    std::vector<qkv::GeneratedToken> generated_;
    std::vector<std::string> pieces_;
    QString stopReason_;
    std::shared_ptr<Mailbox> mailbox_;  // the generation under way, or null
    QLabel* reason_;
    QWidget* controls_;
    QSpinBox* tokens_;
    QDoubleSpinBox* temperature_;
    QSpinBox* seed_;
    QPushButton* generate_;
    QPushButton* keep_;
    QLabel* status_;
    QSplitter* body_;
    QTableWidget* table_;
    GenerationAttention* attention_;
    // Declared last: its destructor waits for the running generation (stopped first by the destructor).
    LatestTask<GenerationEnd> generation_{[this](GenerationEnd outcome) { deliver(outcome); }};
};

}  // namespace qkv::ui
