package agentprompt

import "github.com/tabguard/tabguard"

// Config is what a server may answer prompts with: credentials by origin,
// from the -credentials file, and the -upload-dir, the only place a file
// chooser may be given files from. The zero value answers nothing: every
// sign-in is refused and every file chooser cancelled.
type Config struct {
	// Credentials are the sign-ins by origin, as NormalOrigin writes it.
	// Never show them.
	Credentials map[string]tabguard.Credentials
	// UploadDir is absolute, with its links resolved; empty: no uploads.
	UploadDir string
}

// LoadConfig reads the -credentials file at credFile (none when empty),
// with each password from lookupEnv, and checks the -upload-dir uploadDir
// (none when empty). An origin p does not open is refused: the credentials
// could never be used, and a configuration that says otherwise is a
// mistake. Errors name the file, the entry and the variable, never a
// password.
func LoadConfig(credFile, uploadDir string, p *tabguard.URLPolicy, lookupEnv func(string) (string, bool)) (Config, error) {
	var c Config
	if credFile != "" {
		creds, err := loadCredentials(credFile, p, lookupEnv)
		if err != nil {
			return Config{}, err
		}
		c.Credentials = creds
	}
	if uploadDir != "" {
		dir, err := resolveUploadDir(uploadDir)
		if err != nil {
			return Config{}, err
		}
		c.UploadDir = dir
	}
	return c, nil
}
