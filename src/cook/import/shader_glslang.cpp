/*
 * shader_glslang.cpp — one stage through glslang's C++ API (the compiler
 * libshaderc wraps), behind the C function shader_glslang_compile
 * (shader_glslang.h). C++ only because glslang's include callbacks and
 * SPIR-V generation are C++ in Debian 12's glslang 12.0.
 */
#include <glslang/Public/ResourceLimits.h>
#include <glslang/Public/ShaderLang.h>
#include <glslang/SPIRV/GlslangToSpv.h>

#include <cstdlib>
#include <cstring>
#include <mutex>
#include <new>
#include <string>
#include <vector>

#include "cook/import/shader_glslang.h"

namespace {

std::once_flag process_once;

const EShLanguage stage_languages[] = {
    EShLangVertex,     EShLangTessControl, EShLangTessEvaluation, EShLangGeometry, EShLangFragment,
    EShLangCompute,    EShLangTask,        EShLangMesh,           EShLangRayGen,   EShLangAnyHit,
    EShLangClosestHit, EShLangMiss,        EShLangIntersect,      EShLangCallable,
};

class Includer : public glslang::TShader::Includer {
  public:
    explicit Includer(shader_glslang_job *job) : job_(job) {}
    IncludeResult *includeLocal(const char *name, const char *includer, size_t depth) override {
        return resolve(name, true, includer, depth);
    }
    IncludeResult *includeSystem(const char *name, const char *includer, size_t depth) override {
        return resolve(name, false, includer, depth);
    }
    void releaseInclude(IncludeResult *result) override {
        if (result == nullptr)
            return;
        std::free(result->userData);
        delete result;
    }

  private:
    IncludeResult *resolve(const char *name, bool relative, const char *includer, size_t depth) {
        char *path = nullptr, *content = nullptr;
        size_t length = 0;
        /* On failure glslang reports "cannot find include"; the callback has
         * already put the reason into the job's log. */
        if (!job_->include(job_->user, name, relative, includer ? includer : job_->path, depth,
                           &path, &content, &length))
            return nullptr;
        std::string header(path);
        std::free(path);
        return new (std::nothrow) IncludeResult(header, content, length, content);
    }
    shader_glslang_job *job_;
};

char *copy_string(const std::string &text) {
    char *out = static_cast<char *>(std::malloc(text.size() + 1));
    if (out != nullptr)
        std::memcpy(out, text.c_str(), text.size() + 1);
    return out;
}

} // namespace

extern "C" bool shader_glslang_compile(shader_glslang_job *job) {
    job->words = nullptr;
    job->word_count = 0;
    job->log = nullptr;
    try {
        std::call_once(process_once, [] { glslang::InitializeProcess(); });
        static const glslang::EShTargetClientVersion clients[] = {
            glslang::EShTargetVulkan_1_0, glslang::EShTargetVulkan_1_1,
            glslang::EShTargetVulkan_1_2, glslang::EShTargetVulkan_1_3};
        static const glslang::EShTargetLanguageVersion spirv[] = {
            glslang::EShTargetSpv_1_0, glslang::EShTargetSpv_1_3, glslang::EShTargetSpv_1_5,
            glslang::EShTargetSpv_1_6};
        int target = job->target >= 0 && job->target < 4 ? job->target : 3;
        EShLanguage language = stage_languages[job->stage];
        glslang::TShader shader(language);
        const char *texts[] = {job->text};
        const int lengths[] = {static_cast<int>(job->size)};
        const char *names[] = {job->path};
        shader.setStringsWithLengthsAndNames(texts, lengths, names, 1);
        shader.setPreamble(job->preamble);
        shader.setEnvInput(job->hlsl ? glslang::EShSourceHlsl : glslang::EShSourceGlsl, language,
                           glslang::EShClientVulkan, 100);
        shader.setEnvClient(glslang::EShClientVulkan, clients[target]);
        shader.setEnvTarget(glslang::EShTargetSpv, spirv[target]);
        if (job->hlsl || std::strcmp(job->entry, "main") != 0) {
            shader.setEntryPoint(job->entry);
            shader.setSourceEntryPoint(job->entry);
        }
        EShMessages messages = static_cast<EShMessages>(EShMsgSpvRules | EShMsgVulkanRules);
        if (job->hlsl)
            messages = static_cast<EShMessages>(messages | EShMsgReadHlsl);
        Includer includer(job);
        std::string log;
        bool ok = shader.parse(GetDefaultResources(), 100, false, messages, includer);
        log += shader.getInfoLog();
        glslang::TProgram program;
        if (ok) {
            program.addShader(&shader);
            ok = program.link(messages);
            log += program.getInfoLog();
        }
        /* glslang only warns when the entry point is missing, and emits an
         * empty module whose entry point has the name asked for. */
        if (ok && log.find("Entry point not found") != std::string::npos) {
            log += std::string("ERROR: entry point '") + job->entry +
                   "' not found (name it main, or set shader.entry in a kiln.yml rule)\n";
            ok = false;
        }
        if (ok && job->warnings_as_errors && log.find("WARNING:") != std::string::npos) {
            log += "ERROR: warnings are errors (shader.warnings_as_errors)\n";
            ok = false;
        }
        if (ok) {
            std::vector<unsigned int> words;
            spv::SpvBuildLogger logger;
            glslang::SpvOptions options;
            options.generateDebugInfo = job->debug;
            options.stripDebugInfo = false; /* names stay: reflection reports them */
            options.disableOptimizer = job->optimize == 2;
            options.optimizeSize = job->optimize == 1;
            options.validate = false; /* the driver validates with the target's rules */
            glslang::GlslangToSpv(*program.getIntermediate(language), words, &logger, &options);
            std::string spv_log = logger.getAllMessages();
            if (!spv_log.empty())
                log += spv_log;
            if (words.empty()) {
                ok = false;
            } else {
                job->words = static_cast<uint32_t *>(std::malloc(words.size() * 4));
                if (job->words == nullptr)
                    return false;
                std::memcpy(job->words, words.data(), words.size() * 4);
                job->word_count = words.size();
            }
        }
        job->log = copy_string(log);
        return ok;
    } catch (...) {
        job->log = copy_string("ERROR: the shader compiler failed (out of memory?)\n");
        return false;
    }
}
