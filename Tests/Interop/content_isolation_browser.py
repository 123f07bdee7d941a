#!/usr/bin/env python3
"""Stored XSS through served content, tried in a real browser (headless Chromium through Selenium): an operator signs
in to the dashboard with ADMIN_KEY, then opens a staged file that a tenant uploaded as HTML whose script would take
the page's CSRF token and issue itself an admin key. It opens the file's API URL directly (the link an attacker
would send) and the dashboard's own link to it. Prints one JSON object of what the browser saw: the title after
each visit (the page's script sets it to "pwned" as it runs) and the link's address.

    content_isolation_browser.py http://127.0.0.1:PORT ADMIN_KEY FILE_ID
"""
import json
import sys

import headless_chromium

try:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions
    from selenium.webdriver.support.ui import WebDriverWait
except ImportError:
    sys.exit("selenium is needed: pip install selenium (and apt-get install chromium chromium-driver)")

base, key, file_id = sys.argv[1:4]
driver = headless_chromium.start()
wait = WebDriverWait(driver, 60, poll_frequency=0.05)
seen = {}
try:
    driver.get(base + "/ui/sign-in")
    driver.find_element(By.ID, "key").send_keys(key + "\n")
    wait.until(expected_conditions.url_to_be(base + "/ui/sessions"))

    # the attacker's link: the content's API URL, opened by a signed-in operator
    driver.get(f"{base}/v1/files/{file_id}/content")
    seen["directTitle"] = driver.title
    seen["directText"] = driver.find_element(By.TAG_NAME, "body").text[:300]

    # the dashboard's own link to it
    driver.get(base + "/ui/files")
    link = driver.find_element(By.CSS_SELECTOR, f'a[href^="/v1/files/{file_id}/content?"]')
    seen["link"] = link.get_attribute("href")
    driver.get(seen["link"])
    seen["linkTitle"] = driver.title
    seen["linkURL"] = driver.current_url
finally:
    driver.quit()
print(json.dumps(seen))
