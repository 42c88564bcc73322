/* Replays corpus files through a fuzz target without libFuzzer: built with
 * gcc and the sanitizers into build/host/test_fuzz_TARGET, run by `make
 * test` like the cmocka tests, and printing TAP the same way: one result
 * per file of CORPUS_DIR (tests/fuzz/TARGET/). A file that crashes the
 * target ends the run (ASan or UBSan report, or abort), which tests/run
 * counts as a failure; the file to blame is the last "# replaying" line.
 *
 * With arguments, replays those files instead (to reproduce a crash:
 * build/host/test_fuzz_elf crash-1234...). */
#include <dirent.h>
#include <string.h>
#include <sys/stat.h>

#include "tests/fuzz/fuzz.h"

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static uint8_t *read_whole_file(const char *path, size_t *size)
{
    FILE *file = fopen(path, "rb");
    if (!file)
        return NULL;
    fseek(file, 0, SEEK_END);
    long length = ftell(file);
    fseek(file, 0, SEEK_SET);
    uint8_t *data = malloc(length > 0 ? (size_t)length : 1);
    *size = fread(data, 1, (size_t)(length > 0 ? length : 0), file);
    fclose(file);
    return data;
}

static size_t list_corpus(const char *dir, char ***paths)
{
    DIR *d = opendir(dir);
    size_t count = 0, capacity = 16;
    *paths = malloc(capacity * sizeof(char *));
    if (!d)
        return 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        if (e->d_name[0] == '.')
            continue;
        if (count == capacity)
            *paths = realloc(*paths, (capacity *= 2) * sizeof(char *));
        size_t length = strlen(dir) + strlen(e->d_name) + 2;
        (*paths)[count] = malloc(length);
        snprintf((*paths)[count++], length, "%s/%s", dir, e->d_name);
    }
    closedir(d);
    qsort(*paths, count, sizeof(char *), by_name);
    return count;
}

int main(int argc, char **argv)
{
    char **paths;
    size_t count;
    if (argc > 1) {
        paths = argv + 1;
        count = (size_t)argc - 1;
    } else {
        count = list_corpus(CORPUS_DIR, &paths);
    }
    printf("1..%zu\n", count);
    if (count == 0)
        printf("# no corpus files in %s\n", CORPUS_DIR);
    for (size_t i = 0; i < count; i++) {
        size_t size = 0;
        printf("# replaying %s\n", paths[i]);
        fflush(stdout);
        uint8_t *data = read_whole_file(paths[i], &size);
        if (!data) {
            printf("not ok %zu - %s (cannot read)\n", i + 1, paths[i]);
            continue;
        }
        LLVMFuzzerTestOneInput(data, size);
        free(data);
        printf("ok %zu - %s\n", i + 1, paths[i]);
    }
    if (argc == 1) {
        for (size_t i = 0; i < count; i++)
            free(paths[i]);
        free(paths);
    }
    return count == 0;
}
