#pragma once
// A checkpoint folder without its tokenizer files, as a user gets one when only the weights and
// config.json were copied: the test fixture GPT-2's config.json and model.safetensors alone.

#include <QFile>
#include <QString>
#include <QTemporaryDir>

#include <string>

#include "support/test_paths.hpp"

namespace qkv::ui::testing {

// Copies them into `folder`; the weights file's path, or empty when a copy failed.
inline QString copyGpt2WithoutTokenizer(const QTemporaryDir& folder)
{
    const QString gpt2 = QString::fromStdString(std::string(qkv::testDataDir()) + "/pretrained/gpt2/");
    for (const char* name : {"config.json", "model.safetensors"})
        if (!QFile::copy(gpt2 + QLatin1String(name), folder.filePath(QLatin1String(name)))) return {};
    return folder.filePath(QStringLiteral("model.safetensors"));
}

}  // namespace qkv::ui::testing
