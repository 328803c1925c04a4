// Loaded by .mocharc before every test file, so Controllers started in process or as child processes
// inherit it: none takes SFTP's default port 2022 (several test runs may share a machine). A test that
// wants SFTP passes `--sftp-port 0`.
process.env.CAIRN_SFTP_PORT ??= 'off';
