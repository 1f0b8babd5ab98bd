// MainWindow's File menu: sessions (New, Open…, Save, Save As…, Open Recent, Examples), the
// layer's weights, figure export and Quit. The work is DocumentFiles'.
#include <QDir>
#include <QMenu>
#include <QMenuBar>

#include "ui/document/document.hpp"
#include "ui/document/examples.hpp"
#include "ui/mainwindow/document_files.hpp"
#include "ui/mainwindow/main_window.hpp"

namespace qkv::ui {

void MainWindow::createFileMenu()
{
    QMenu* file = menuBar()->addMenu(tr("&File"));
    fileMenu_ = file;
    QAction* newAction = file->addAction(tr("&New"), files_, &DocumentFiles::newDocument);
    newAction->setShortcut(QKeySequence::New);
    newAction->setStatusTip(tr("A new session on the paper's random initialisation"));
    QAction* open = file->addAction(tr("&Open…"), files_, &DocumentFiles::open);
    open->setShortcut(QKeySequence::Open);
    open->setStatusTip(tr("Open a session (.qkv.json): settings, weights and view, as saved"));

    QMenu* recent = file->addMenu(tr("Open &Recent"));
    connect(recent, &QMenu::aboutToShow, this, [this, recent] {
        recent->clear();
        const QStringList files = files_->recentFiles().files();
        for (int i = 0; i < files.size(); ++i) {
            const QString path = files[i];
            const QString text = QStringLiteral("&%1 %2").arg(i + 1).arg(QDir::toNativeSeparators(path));
            recent->addAction(text, files_, [this, path] { files_->openFile(path); });
        }
        if (files.isEmpty()) recent->addAction(tr("No recent sessions"))->setEnabled(false);
        recent->addSeparator();
        recent->addAction(tr("&Clear Menu"), this, [this] { files_->recentFiles().clear(); })->setEnabled(!files.isEmpty());
    });
    QMenu* examplesMenu = file->addMenu(tr("&Examples"));
    for (const Example& example : examples()) {
        QAction* action = examplesMenu->addAction(example.title, files_, [this, example] { files_->openExample(example); });
        action->setStatusTip(example.description);
    }
    examplesMenu->addSeparator();
    QAction* demo = examplesMenu->addAction(tr("A Model That Learned &Induction Heads"), this, &MainWindow::openDemoModel);
    demo->setStatusTip(tr("A two-layer GPT-2 trained on repeated letters: the Model tab names its previous-token heads "
                          "(layer 0) and induction heads (layer 1); Predict switches them off"));
    file->addSeparator();
    QAction* save = file->addAction(tr("&Save"), files_, &DocumentFiles::save);
    save->setShortcut(QKeySequence::Save);
    save->setStatusTip(tr("Save the session: settings, loaded or edited weights, and the view"));
    QAction* saveAs = file->addAction(tr("Save &As…"), files_, &DocumentFiles::saveAs);
    saveAs->setShortcut(QKeySequence::SaveAs);

    file->addSeparator();
    QAction* load = file->addAction(tr("&Load Weights…"), this, &MainWindow::loadWeightsInteractively);
    load->setShortcut(QKeySequence(tr("Ctrl+L")));
    load->setStatusTip(tr("Use W_Q, W_K, W_V, W_O (or a PyTorch nn.MultiheadAttention state dict) from a safetensors file"));
    QAction* checkpoint = file->addAction(tr("Open Chec&kpoint…"), this, &MainWindow::openCheckpointInteractively);
    checkpoint->setStatusTip(tr("Use one attention layer of a Hugging Face checkpoint (BERT, DistilBERT, GPT-2, "
                                "BART/Marian, T5, LLaMA-style) or of a PyTorch state dict with several "
                                "nn.MultiheadAttention layers: a .safetensors file or a sharded model's index.json"));
    QAction* model = file->addAction(tr("Open &Model…"), this, &MainWindow::openModelInteractively);
    model->setShortcut(QKeySequence(tr("Ctrl+Shift+O")));
    model->setStatusTip(tr("A model of the Hugging Face cache (~/.cache/huggingface/hub), or any model folder: "
                           "its list of layers, then the layer and the whole model"));
    QAction* generated = file->addAction(tr("Use &Generated Weights"), this, &MainWindow::useGeneratedWeights);
    generated->setStatusTip(tr("Back to the weights the seed generates"));
    const auto updateGenerated = [this, generated] { generated->setEnabled(document_->session().weights != nullptr); };
    connect(document_, &Document::contentChanged, generated, updateGenerated);
    updateGenerated();

    file->addSeparator();
    // Export Figure… and Copy Figure (ui/mainwindow/figure_actions.hpp) go before this separator.
    figureAnchor_ = file->addSeparator();
    QAction* quit = file->addAction(tr("&Quit"), this, &QWidget::close);
    quit->setShortcut(QKeySequence::Quit);
    quit->setMenuRole(QAction::QuitRole);
}

}  // namespace qkv::ui
