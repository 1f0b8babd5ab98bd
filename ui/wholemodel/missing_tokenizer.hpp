#pragma once
// What the Model and Predict tabs say in place of the whole model when its checkpoint folder has
// no tokenizer files: no typed sentence can reach the model, so it is not run. The text names the
// folder and the files to add (those the model's family reads, core/text/subword_tokenizer.hpp),
// never "open a model" right after one was opened.

#include <QString>

#include <memory>
#include <string>

#include "core/common/expected.hpp"
#include "core/pretrained/pretrained_model.hpp"

namespace qkv::ui {

// The message for the weights file `weightsFile` (a checkpoint: a .safetensors file, a shard
// index or a model folder) when its folder holds no tokenizer files; empty when it has some, or
// when the file is not a checkpoint (a trained model, generated weights: no file).
QString missingTokenizerText(const QString& weightsFile);

// The whole model of the checkpoint `weightsFile` with the tokenizer files of the folder holding
// `tokenizerFile` (the tokenizer.json a user pointed at; that folder's tokenizer as
// loadSubwordTokenizer finds it, both sides' for an encoder-decoder). Reads every weight: call it
// off the GUI thread. Refuses a tokenizer with more tokens than the model's token table (it is
// another model's), naming both counts.
qkv::Expected<std::shared_ptr<const qkv::PretrainedModel>> loadModelWithTokenizer(const std::string& weightsFile,
                                                                                  const std::string& tokenizerFile);

// The files the family of the model in `folder` (its config.json's model_type) reads its
// tokenizer from: "tokenizer.json (or tokenizer.model)", "vocab.txt (or tokenizer.json)", ...
QString tokenizerFilesOf(const QString& folder);

}  // namespace qkv::ui
