// Package notifications holds the pages of /notifications: the buyer's お知らせ.
package notifications
